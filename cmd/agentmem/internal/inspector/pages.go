package inspector

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"github.com/agentmem/agentmem/core/memerr"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

//go:embed templates static
var assets embed.FS

// pageNames are the templates under templates/, each rendered inside layout.html.
var pageNames = []string{"threads", "thread", "prompt", "recall", "login", "error"}

// pages holds one parsed template set per page.
type pages struct{ sets map[string]*template.Template }

var funcs = template.FuncMap{
	"when":     formatTime,
	"markdown": renderMarkdown,
	"slug":     func(s string) string { return strings.ReplaceAll(s, " ", "-") },
}

func parsePages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(assets,
			"templates/layout.html", "templates/message.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		p.sets[name] = t
	}
	return p, nil
}

// frame is what every page template receives: the layout's fields and the
// page's own data in Body.
type frame struct {
	Title  string
	CSRF   string
	Write  bool
	Token  bool // the request is logged in with the app's token (show the log-out button)
	PollMS int64
	Body   any
}

// render executes a page into a buffer first, so a template failure becomes
// a clean 500 instead of half a page.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, name, title string, body any) {
	f := frame{Title: title, CSRF: s.csrf, Write: s.opts.Write, Token: s.opts.Token != "" && s.authenticated(r),
		PollMS: s.opts.PollInterval.Milliseconds(), Body: body}
	var buf bytes.Buffer
	if err := s.pages.sets[name].ExecuteTemplate(&buf, "layout", f); err != nil {
		s.log.ErrorContext(r.Context(), "agentmem inspector: render failed", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorData is the error page's data.
type errorData struct {
	Status  int
	Code    string
	Message string
}

// fail renders err as an error page with the status its code implies.
// Server-side failures are logged and shown without their detail, which may
// name storage internals.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	d := errorData{Status: status, Message: "internal error (see the server log)"}
	var ce *memerr.Error
	if status < 500 && errors.As(err, &ce) {
		d.Code, d.Message = string(ce.Code), ce.Error()
	} else if status < 500 {
		d.Message = err.Error()
	} else {
		s.log.ErrorContext(r.Context(), "agentmem inspector: request failed", "path", r.URL.Path, "err", err)
	}
	s.render(w, r, status, "error", http.StatusText(status), d)
}

// badRequest is an input error of the inspector's own forms.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

// statusOf maps an error to an HTTP status.
func statusOf(err error) int {
	var br badRequest
	switch {
	case errors.As(err, &br):
		return http.StatusBadRequest
	case errors.Is(err, memerr.ErrThreadNotFound), errors.Is(err, memerr.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, memerr.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, memerr.ErrVector), errors.Is(err, memerr.ErrEmbeddingDimensionMismatch),
		errors.Is(err, memerr.ErrEmbeddingDimensionFailed):
		return http.StatusBadGateway // the vector store or embedder failed
	case errors.Is(err, memerr.ErrUnsupported):
		return http.StatusNotImplemented
	case errors.Is(err, memerr.ErrDeadlineExceeded), errors.Is(err, memerr.ErrCanceled):
		return http.StatusServiceUnavailable
	case errors.Is(err, memerr.ErrInvalidArgument), errors.Is(err, memerr.ErrMissingThreadID),
		errors.Is(err, memerr.ErrMissingResourceID), errors.Is(err, memerr.ErrInvalidMessage),
		errors.Is(err, memerr.ErrMessageTooLarge), errors.Is(err, memerr.ErrResourceMismatch),
		errors.Is(err, memerr.ErrInvalidConfig), errors.Is(err, memerr.ErrWorkingMemoryDisabled):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// staticHandler serves the embedded CSS and JavaScript.
func staticHandler() (http.Handler, error) {
	sub, err := fs.Sub(assets, "static")
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the embedded files themselves: no directory listing, and a
		// name that is not a valid path (bad escapes decode to invalid
		// UTF-8) is simply not found.
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		if !utf8.ValidString(name) || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		if fi, err := fs.Stat(sub, name); err != nil || !fi.Mode().IsRegular() {
			http.NotFound(w, r)
			return
		}
		http.ServeFileFS(w, r, sub, name)
	}), nil
}

// formatTime renders a timestamp in UTC; the zero time is "—".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// prettyJSON indents a JSON document; anything else comes back unchanged.
func prettyJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// jsonText encodes v indented ("" for an empty map or nil).
func jsonText(v map[string]any) string {
	if len(v) == 0 {
		return ""
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// clip shortens s to n runes for previews.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
