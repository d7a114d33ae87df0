package inspector

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

const token = "s3cret-token-0123456789"

func TestTokenRequired(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h := f.handler(t, Options{Token: token})
	for _, path := range []string{"/", threadURL(f.support.ID, 0), "/thread/state?id=" + f.support.ID, promptURL(f.support.ID), "/recall"} {
		w := get(h, path)
		wantStatus(t, w, http.StatusUnauthorized)
		if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: no bearer challenge", path)
		}
		wantStatus(t, get(h, path, "Authorization", "Bearer wrong"), http.StatusUnauthorized)
		wantStatus(t, get(h, path, "Authorization", "Bearer "+token), http.StatusOK)
	}
	// A browser is sent to the login form, keeping where it was going.
	w := get(h, "/recall?q=x", "Accept", "text/html")
	wantStatus(t, w, http.StatusSeeOther)
	if loc := w.Header().Get("Location"); loc != "/login?next=%2Frecall%3Fq%3Dx" {
		t.Errorf("redirect to %q", loc)
	}
	// The assets need no token: they hold no data.
	wantStatus(t, get(h, "/static/app.css"), http.StatusOK)
	wantStatus(t, get(h, "/static/app.js"), http.StatusOK)
}

func TestLoginForm(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h := f.handler(t, Options{Token: token})
	w := get(h, "/login?next=/thread?id=x")
	wantStatus(t, w, http.StatusOK)
	csrf := csrfOf(t, w.Body.String())
	// Wrong token: 401 and no cookie.
	w = post(h, "/login", url.Values{"csrf": {csrf}, "token": {"nope"}, "next": {"/"}})
	wantStatus(t, w, http.StatusUnauthorized)
	if len(w.Result().Cookies()) != 0 {
		t.Error("a cookie for a wrong token")
	}
	// Without the CSRF token the form is refused.
	wantStatus(t, post(h, "/login", url.Values{"token": {token}}), http.StatusForbidden)
	// Right token: an HttpOnly, SameSite=Strict cookie that opens the pages.
	w = post(h, "/login", url.Values{"csrf": {csrf}, "token": {token}, "next": {"//evil.example/"}})
	wantStatus(t, w, http.StatusSeeOther)
	if loc := w.Header().Get("Location"); loc != "/" {
		t.Errorf("next=//evil.example/ redirected to %q", loc)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Value == token {
		t.Fatalf("cookie %+v", cookies)
	}
	c := cookies[0].Name + "=" + cookies[0].Value
	wantStatus(t, get(h, "/", "Cookie", c), http.StatusOK)
	wantStatus(t, get(h, "/", "Cookie", cookies[0].Name+"=forged"), http.StatusUnauthorized)
	// Log out clears the cookie.
	w = post(h, "/logout", url.Values{"csrf": {csrf}}, "Cookie", c)
	wantStatus(t, w, http.StatusSeeOther)
	if out := w.Result().Cookies(); len(out) != 1 || out[0].MaxAge >= 0 {
		t.Errorf("logout cookies %+v", out)
	}
}

func TestHostCheck(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	open := f.handler(t, Options{})
	for host, status := range map[string]int{
		"127.0.0.1:7700": http.StatusOK, "localhost:7700": http.StatusOK, "[::1]:7700": http.StatusOK,
		"evil.example": http.StatusForbidden, "evil.example:7700": http.StatusForbidden, "10.0.0.5:7700": http.StatusForbidden,
	} {
		w := getHost(open, host, "/")
		if w.Code != status {
			t.Errorf("Host %s: status %d, want %d", host, w.Code, status)
		}
	}
	// With a token the host may be anything (the token is the guard).
	guarded := f.handler(t, Options{Token: token})
	if w := getHost(guarded, "inspector.example:7700", "/", "Authorization", "Bearer "+token); w.Code != http.StatusOK {
		t.Errorf("token mode, foreign host: %d", w.Code)
	}
}

var scriptTagRE = regexp.MustCompile(`(?i)<script\b[^>]*>`)

func TestSecurityHeaders(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h := f.handler(t, Options{Write: true})
	for _, path := range []string{"/", threadURL(f.support.ID, 0), promptURL(f.support.ID, "input", "<script>alert(1)</script>"),
		recallURL("resource", "user-456", "q", "<script>alert(1)</script>"), "/thread?id=missing"} {
		w := get(h, path)
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, w.Header())
		}
		// The only script is the app's own file: no inline script at all.
		for _, tag := range scriptTagRE.FindAllString(w.Body.String(), -1) {
			if tag != `<script src="/static/app.js" defer>` {
				t.Errorf("%s: script tag %s", path, tag)
			}
		}
	}
}

// csrfOf extracts the CSRF token from a page's forms.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token on the page")
	}
	return m[1]
}

// TestLogoutOnlyWhenLoggedIn: the log-out button shows only to a request
// that carries the token.
func TestLogoutOnlyWhenLoggedIn(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h := f.handler(t, Options{Token: token})
	w := get(h, "/login")
	wantStatus(t, w, http.StatusOK)
	if strings.Contains(w.Body.String(), "Log out") {
		t.Error("the login page offers \"Log out\" to a visitor who is not logged in")
	}
	w = get(h, "/", "Authorization", "Bearer "+token)
	wantStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), "Log out") {
		t.Error("a logged-in page has no \"Log out\"")
	}
}

// TestShortTokenRefused: a token shorter than MinTokenLength is refused.
func TestShortTokenRefused(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	for _, tok := range []string{"a", strings.Repeat("x", MinTokenLength-1)} {
		if _, err := New(Options{Memory: f.mem, Token: tok}); err == nil || !strings.Contains(err.Error(), "at least") {
			t.Errorf("token %q: %v, want a refusal", tok, err)
		}
	}
	if _, err := New(Options{Memory: f.mem, Token: strings.Repeat("x", MinTokenLength)}); err != nil {
		t.Errorf("token of %d characters: %v", MinTokenLength, err)
	}
}

// TestStaticServesFilesOnly: /static/ lists nothing, and malformed names are
// not found rather than failing.
func TestStaticServesFilesOnly(t *testing.T) {
	f := newFixture(t, stores[0].open(t))
	h := f.handler(t, Options{})
	for _, path := range []string{"/static/", "/static/%ff", "/static/%c0%ae%c0%ae/app.css", "/static/nope.css"} {
		w := get(h, path)
		wantStatus(t, w, http.StatusNotFound)
		if w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, w.Header().Get("Cache-Control"))
		}
		if strings.Contains(w.Body.String(), "app.css") {
			t.Errorf("%s lists the assets", path)
		}
	}
	wantStatus(t, get(h, "/static/app.css"), http.StatusOK)
}
