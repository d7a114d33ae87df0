// Package inspector is the memory inspector of `agentmem serve`: a small web
// app that shows agentmem's memory the way the model sees it. Its pages are
// the thread list, a thread as chat bubbles with the persisted trim boundary
// drawn as a line, the next prompt of a thread (a read-only Begin with the
// token use by source), and a recall playground over the vector store.
//
// Pages are rendered on the server with html/template (every stored string
// is escaped), assets are embedded in the binary, the JavaScript is one
// small file served by the app (no inline script, a strict
// Content-Security-Policy), and nothing is fetched from the network.
//
// It is read-only unless Options.Write is set; writes (editing working
// memory, deleting a thread) carry a CSRF token. With Options.Token set,
// every page needs the token, as a bearer header or through a login form
// that sets an HttpOnly cookie. Serve refuses to listen on a non-loopback
// address without a token.
package inspector

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/vector"
)

// DefaultAddr is the address `agentmem serve` listens on by default.
const DefaultAddr = "127.0.0.1:7700"

// CodeNeedsToken is the error code of a non-loopback address without a token.
const CodeNeedsToken memerr.Code = "INSPECTOR_NEEDS_TOKEN"

// ErrNeedsToken is the sentinel of Serve's error for a non-loopback address
// when Options.Token is empty; compare with errors.Is.
var ErrNeedsToken = memerr.NewSentinel(CodeNeedsToken, "a non-loopback address needs a token")

// Options configure the inspector.
type Options struct {
	// Memory is the memory to inspect (required). Its configuration decides
	// the history window and recall of the next-prompt view.
	Memory *core.Memory
	// Store is the storage to read; nil means Memory's store.
	Store store.Store
	// Vector and Embedder serve the recall playground: the same values given
	// to core.New. Without Vector the playground says recall is not
	// configured; Embedder is needed unless Vector embeds by itself.
	Vector   vector.Store
	Embedder vector.Embedder
	// EmbeddingDimension names the index of a self-embedding vector store
	// (as core.Options.EmbeddingDimension does).
	EmbeddingDimension int
	// Write allows editing working memory and deleting threads.
	Write bool
	// Token, when set, is required on every request: as "Authorization:
	// Bearer <token>" or through the login form's HttpOnly cookie. It must
	// have at least MinTokenLength characters.
	Token string
	// PollInterval is how often an open thread view checks for changes;
	// default 2s.
	PollInterval time.Duration
	// Logger receives request failures; default slog.Default().
	Logger *slog.Logger
	// OnListen, when set, is called by Serve with the bound address once it
	// listens (useful with port 0).
	OnListen func(net.Addr)
}

// server holds the handlers' shared state.
type server struct {
	opts  Options
	mem   *core.Memory
	store *store.Checked
	pages *pages
	csrf  string // per-process token embedded in every form
	log   *slog.Logger
}

// MinTokenLength is the shortest Options.Token accepted: a token guards an
// address other machines can reach, so it must not be guessable.
const MinTokenLength = 16

// New returns the inspector's HTTP handler.
func New(opts Options) (http.Handler, error) {
	const op = "inspector.New"
	if opts.Memory == nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "Options.Memory is required")
	}
	if n := utf8.RuneCountInString(opts.Token); opts.Token != "" && n < MinTokenLength {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "the token has %d characters; use at least %d (for example: openssl rand -hex 16)", n, MinTokenLength)
	}
	raw := opts.Store
	if raw == nil {
		var err error
		if raw, err = opts.Memory.Store(); err != nil {
			return nil, err
		}
	}
	store := store.Check(raw) // validated calls and optional capabilities as ErrUnsupported
	if opts.Vector != nil && !opts.Vector.SelfEmbedding() && opts.Embedder == nil {
		return nil, memerr.Errorf(memerr.CodeInvalidArgument, op, "Options.Vector needs Options.Embedder (the store does not embed)")
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	csrf, err := randomHex(32)
	if err != nil {
		return nil, err
	}
	static, err := staticHandler()
	if err != nil {
		return nil, err
	}
	s := &server{opts: opts, mem: opts.Memory, store: store, pages: p, csrf: csrf, log: opts.Logger}
	return s.routes(static), nil
}

// routes wires the pages behind the security middleware.
func (s *server) routes(static http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", static)
	mux.HandleFunc("GET /{$}", s.threadList)
	mux.HandleFunc("GET /thread", s.threadView)
	mux.HandleFunc("GET /thread/state", s.threadState)
	mux.HandleFunc("GET /prompt", s.promptView)
	mux.HandleFunc("GET /recall", s.recallView)
	mux.HandleFunc("POST /thread/working-memory", s.writeWorkingMemory)
	mux.HandleFunc("POST /thread/delete", s.deleteThread)
	mux.HandleFunc("GET /login", s.loginForm)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	return s.secure(mux)
}

// Serve listens on addr and serves the inspector until ctx is cancelled,
// then shuts down gracefully. A non-loopback addr (a host other than
// localhost or a loopback IP, including an empty host) is refused with
// ErrNeedsToken unless opts.Token is set.
func Serve(ctx context.Context, addr string, opts Options) error {
	if opts.Token == "" && !loopbackAddr(addr) {
		return &memerr.Error{Code: CodeNeedsToken, Op: "inspector.Serve",
			Msg: "refusing to listen on " + addr + " without a token: bind a loopback address (127.0.0.1) or set a token"}
	}
	h, err := New(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if opts.OnListen != nil {
		opts.OnListen(ln.Addr())
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackAddr reports whether addr's host is localhost or a loopback IP.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

// loopbackHost reports whether host names this machine only.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// digest is a fixed-length fingerprint used for constant-time comparisons.
func digest(s string) []byte {
	d := sha256.Sum256([]byte(s))
	return d[:]
}
