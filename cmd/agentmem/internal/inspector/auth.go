package inspector

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentmem/agentmem/core"
)

// maxFormBytes caps a submitted form: twice core's default cap on one
// message, room for any working memory.
const maxFormBytes = 2 * core.DefaultMaxMessageBytes

// sessionCookie is the name of the login cookie.
const sessionCookie = "agentmem_inspector"

// contentSecurityPolicy allows only the app's own script, style and
// requests: no inline script or style, no other origin, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// secure wraps every route: security headers, the Host check, the token
// check and the CSRF check of state-changing requests.
func (s *server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r) {
			// Without a token the only protection is being reachable from
			// this machine alone; a foreign Host header means a page of
			// another site reached us through DNS rebinding.
			http.Error(w, "forbidden host: open the inspector at 127.0.0.1 or localhost", http.StatusForbidden)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		if !s.authenticated(r) && r.URL.Path != "/login" {
			s.challenge(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := s.checkCSRF(r); err != "" {
				http.Error(w, err, http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hostAllowed accepts any Host when a token guards the app, else only a
// loopback host.
func (s *server) hostAllowed(r *http.Request) bool {
	if s.opts.Token != "" {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return loopbackHost(strings.Trim(host, "[]"))
}

// authenticated reports whether r carries the token (bearer header) or the
// login cookie; always true without a token.
func (s *server) authenticated(r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return subtle.ConstantTimeCompare(digest(auth), digest(s.opts.Token)) == 1
	}
	c, err := r.Cookie(sessionCookie)
	return err == nil && subtle.ConstantTimeCompare(digest(c.Value), digest(s.sessionValue())) == 1
}

// sessionValue is the login cookie's value: derived from the token, so the
// cookie never holds the token itself.
func (s *server) sessionValue() string {
	mac := hmac.New(sha256.New, []byte(s.opts.Token))
	mac.Write([]byte("agentmem inspector login"))
	return hex.EncodeToString(mac.Sum(nil))
}

// challenge sends a browser's page request to the login form and answers
// anything else with 401.
func (s *server) challenge(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="agentmem inspector"`)
	http.Error(w, "unauthorized: send Authorization: Bearer <token> or log in at /login", http.StatusUnauthorized)
}

// checkCSRF returns why a state-changing request is refused, or "". A
// browser's cross-origin request is refused outright (Sec-Fetch-Site and
// Origin, checked by the standard library), and the form must carry this
// process's CSRF token, which another site cannot read.
func (s *server) checkCSRF(r *http.Request) string {
	if err := http.NewCrossOriginProtection().Check(r); err != nil {
		return "forbidden: cross-origin request"
	}
	if subtle.ConstantTimeCompare(digest(r.PostFormValue("csrf")), digest(s.csrf)) != 1 {
		return "forbidden: missing or wrong CSRF token (reload the page)"
	}
	return ""
}

// loginData is the login page's data.
type loginData struct {
	Next  string
	Wrong bool
}

// loginForm shows the token form (only when a token is configured).
func (s *server) loginForm(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", "Log in", loginData{Next: safeNext(r.URL.Query().Get("next"))})
}

// login checks the submitted token and sets the HttpOnly login cookie.
func (s *server) login(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	next := safeNext(r.PostFormValue("next"))
	if subtle.ConstantTimeCompare(digest(r.PostFormValue("token")), digest(s.opts.Token)) != 1 {
		s.render(w, r, http.StatusUnauthorized, "login", "Log in", loginData{Next: next, Wrong: true})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.sessionValue(), Path: "/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout clears the login cookie.
func (s *server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// safeNext keeps a post-login redirect on this site: a local absolute path.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}
