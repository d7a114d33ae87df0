package inspector

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	"github.com/agentmem/agentmem/core/store/sqlite"
	"github.com/agentmem/agentmem/internal/testenv"
)

// chromiumPath finds the browser: AGENTMEM_CHROMIUM, else Debian's chromium
// on PATH. Without one the test is skipped under plain `go test` but fails
// under scripts/test (AGENTMEM_REQUIRE_SERVERS=1), which installs it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTMEM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Unavailable(t, "chromium not found (scripts/lib/chromium.sh installs it; or set AGENTMEM_CHROMIUM)")
	return ""
}

// browser starts a headless Chromium with a fresh profile and no network
// chatter, and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(bg, opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// do runs browser steps and fails the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// run runs one browser action that yields a value.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// typeAndSubmit types text into the input at the CSS selector and submits its form.
func typeAndSubmit(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.SendKeys(chromedp.CSS(sel), text), chromedp.Submit(chromedp.CSS(sel)))
}

// screenshotDir is where page screenshots go: AGENTMEM_SCREENSHOT_DIR, else
// the test's artifact directory (kept with `go test -artifacts`).
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("AGENTMEM_SCREENSHOT_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.ArtifactDir()
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png := run(t, ctx, chromedp.FullScreenshot(100))
	path := filepath.Join(screenshotDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowser drives the pages in a real headless Chromium over a SQLite
// fixture: thread list, a thread with a tool call and a boundary, its live
// refresh, the next prompt, and the recall playground.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	store, err := sqlite.Open(bg, filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	f := newFixture(t, store)
	srv := httptest.NewServer(f.handler(t, Options{PollInterval: 200 * time.Millisecond}))
	defer srv.Close()
	defer watchConsole(t, ctx)()

	t.Run("threads", func(t *testing.T) { browseThreads(t, ctx, srv.URL) })
	t.Run("thread", func(t *testing.T) { browseThread(t, ctx, srv.URL, f) })
	t.Run("live", func(t *testing.T) { browseLive(t, ctx, f) })
	t.Run("prompt", func(t *testing.T) { browsePrompt(t, ctx, srv.URL, f) })
	t.Run("recall", func(t *testing.T) { browseRecall(t, ctx, srv.URL) })

	guarded := httptest.NewServer(f.handler(t, Options{Token: token}))
	defer guarded.Close()
	t.Run("login", func(t *testing.T) { browseLogin(t, ctx, guarded.URL) })
}

// watchConsole collects the page's console from now on; the returned func
// fails the test on any script exception or console error, such as a
// Content-Security-Policy violation. Failed loads (the 401 of a wrong login)
// are the network's business, not the page's.
func watchConsole(t *testing.T, ctx context.Context) func() {
	cctx, cancel := context.WithCancel(ctx)
	msgs := chromedp.Console(cctx)
	var bad []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || (m.Type == "error" && m.Source != "network") {
				bad = append(bad, m.String())
			}
		}
	}()
	return func() {
		cancel()
		<-done
		for _, m := range bad {
			t.Errorf("browser console: %s", m)
		}
	}
}

// browseLogin opens a token-guarded inspector: the browser lands on the
// login form, and the cookie it gets is invisible to scripts.
func browseLogin(t *testing.T, ctx context.Context, base string) {
	do(t, ctx,
		chromedp.Navigate(base+"/recall"),
		chromedp.WaitVisible(chromedp.CSS("form.login input[name=token]")),
		typeAndSubmit("form.login input[name=token]", "wrong"),
		chromedp.WaitVisible(`//form[@class="login"]/p[@class="error"]`),
		typeAndSubmit("form.login input[name=token]", token),
		chromedp.WaitVisible(chromedp.CSS("#recall-form")))
	if c := run(t, ctx, chromedp.Evaluate[string](`document.cookie`)); c != "" {
		t.Errorf("document.cookie = %q: the login cookie must be HttpOnly", c)
	}
	screenshot(t, ctx, "login-then-recall.png")
}

func browseThreads(t *testing.T, ctx context.Context, base string) {
	do(t, ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("tr.thread-row")))
	titles := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('a.thread-link')).map(a => a.textContent.trim())`))
	if len(titles) != 4 || !slices.Contains(titles, "Order support") {
		t.Fatalf("thread list titles %v", titles)
	}
	screenshot(t, ctx, "threads.png")
}

func browseThread(t *testing.T, ctx context.Context, base string, f *fixture) {
	do(t, ctx,
		chromedp.Navigate(base+"/"),
		chromedp.Click(chromedp.CSS(`tr[data-id="`+f.support.ID+`"] a.thread-link`)),
		chromedp.WaitVisible(chromedp.CSS("#boundary")))
	if label := run(t, ctx, chromedp.Text(chromedp.CSS("#boundary .boundary-label"))); label != "the model no longer sees above this line" {
		t.Errorf("boundary label %q", label)
	}
	if s := run(t, ctx, chromedp.Text(chromedp.CSS("details.tool summary"))); !strings.Contains(s, "lookupOrder") {
		t.Errorf("tool call summary %q", s)
	}
	if run(t, ctx, chromedp.Evaluate[bool](`window.__pwned !== undefined`)) {
		t.Error("a stored <script> message executed")
	}
	shownText := run(t, ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('.msg .text')).map(e => e.textContent).find(s => s.includes('__pwned')) || ''`))
	if shownText != scriptMessage {
		t.Errorf("the <script> message shows as %q, want its text verbatim", shownText)
	}
	// Every stored message is on the page with its stored token count.
	shown := run(t, ctx, chromedp.Evaluate[map[string]int](`Object.fromEntries(Array.from(document.querySelectorAll('.conversation article.msg')).map(m => [m.dataset.id, parseInt(m.querySelector('.tokens').dataset.tokens, 10)]))`))
	p, err := f.store.ListMessages(bg, store.MessageQuery{ThreadID: f.support.ID, PerPage: store.PerPageAll})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != len(p.Messages) {
		t.Errorf("%d messages shown, %d stored", len(shown), len(p.Messages))
	}
	for _, m := range p.Messages {
		if m.Tokens <= 0 || shown[m.ID] != m.Tokens {
			t.Errorf("message %s: %d tokens shown, %d stored", m.ID, shown[m.ID], m.Tokens)
		}
	}
	screenshot(t, ctx, "thread.png")
}

// browseLive commits a turn while the thread view is open and waits for the
// page to show it without a reload.
func browseLive(t *testing.T, ctx context.Context, f *fixture) {
	run(t, ctx, chromedp.Evaluate[int](`window.__marker = 1`))
	f.turn(t, f.support, []core.Message{core.NewMessage(core.RoleUser, "One more question: can I change the delivery address?")},
		core.NewMessage(core.RoleAssistant, "Yes, until it ships."))
	do(t, ctx, chromedp.WaitVisible(`//div[contains(@class,"text") and contains(., "change the delivery address")]`))
	if run(t, ctx, chromedp.Evaluate[int](`window.__marker || 0`)) != 1 {
		t.Error("the page reloaded instead of refreshing in place")
	}
}

func browsePrompt(t *testing.T, ctx context.Context, base string, f *fixture) {
	target := base + "/prompt?" + url.Values{"id": {f.support.ID}, "input": {"Do you remember my peanut allergy?"},
		"system": {"You are a friendly support agent."}}.Encode()
	do(t, ctx, chromedp.Navigate(target), chromedp.WaitVisible(chromedp.CSS("#token-bar rect.seg")))
	sources := run(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#token-bar rect.seg')).map(r => r.dataset.source)`))
	for _, want := range []string{srcSystem, srcWorkingMemory, srcHistory, srcInput} {
		if !slices.Contains(sources, want) {
			t.Errorf("bar segments %v lack %q", sources, want)
		}
	}
	if total := run(t, ctx, chromedp.Text(chromedp.CSS("#prompt-total"))); total == "" || total == "0" {
		t.Errorf("prompt total %q", total)
	}
	screenshot(t, ctx, "prompt.png")
}

func browseRecall(t *testing.T, ctx context.Context, base string) {
	do(t, ctx,
		chromedp.Navigate(base+"/recall?resource=user-456"),
		chromedp.WaitVisible(chromedp.CSS("#recall-form")),
		typeAndSubmit("#recall-form input[name=q]", "peanut allergy"),
		chromedp.WaitVisible(chromedp.CSS("section.hit")))
	if first := run(t, ctx, chromedp.Text(chromedp.CSS("section.hit article.recalled .text"))); !strings.Contains(strings.ToLower(first), "peanut") {
		t.Errorf("best hit %q does not mention peanuts", first)
	}
	// Switching the mode submits the form again.
	do(t, ctx,
		chromedp.Click(chromedp.CSS("#recall-form input[name=mode][value=bm25]")),
		chromedp.WaitVisible(`//p[@id="hit-count" and contains(., "(bm25)")]`))
	if count := run(t, ctx, chromedp.Text(chromedp.CSS("#hit-count"))); strings.HasPrefix(count, "0 ") {
		t.Errorf("keyword search: %q", count)
	}
	screenshot(t, ctx, "recall.png")
}
