// Package httprr stands in for langchaingo's internal/httprr in the copied
// upstream memory tests (../memory). Those tests build an OpenAI client only
// because upstream's ConversationTokenBuffer takes an llms.Model; the buffer
// never calls it. So the shim never skips, never records, and its client
// fails every request: a test that reached the network would fail loudly.
package httprr

import (
	"errors"
	"net/http"
	"testing"
)

// SkipIfNoCredentialsAndRecordingMissing does nothing: nothing is replayed.
func SkipIfNoCredentialsAndRecordingMissing(t *testing.T, envVars ...string) { t.Helper() }

// RecordReplay is the shim's client source.
type RecordReplay struct{}

// OpenForTest returns a RecordReplay; the transport is not used.
func OpenForTest(t *testing.T, _ http.RoundTripper) *RecordReplay {
	t.Helper()
	return &RecordReplay{}
}

// Recording reports false: the shim never records.
func (*RecordReplay) Recording() bool { return false }

// Client returns an HTTP client whose every request fails.
func (*RecordReplay) Client() *http.Client { return &http.Client{Transport: refuse{}} }

type refuse struct{}

// ErrNoNetwork is the error of every request through Client.
var ErrNoNetwork = errors.New("httprr shim: the memory tests make no HTTP requests")

func (refuse) RoundTrip(*http.Request) (*http.Response, error) { return nil, ErrNoNetwork }
