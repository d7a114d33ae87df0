package core_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentmem/agentmem/core"
)

// otlpReceiver is an OTLP/HTTP trace endpoint that keeps the raw payloads.
type otlpReceiver struct {
	mu       sync.Mutex
	payloads [][]byte
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.payloads = append(r.payloads, body)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(nil)
}

// TestTelemetryExportsOverOTLP: a turn's spans leave through the SDK's
// OTLP/HTTP exporter as the protocol's protobuf, with their attributes and
// without the message text.
func TestTelemetryExportsOverOTLP(t *testing.T) {
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	m, err := core.New(core.Options{Store: newTestSQLite(t), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r",
		Input: []core.Message{core.NewMessage(core.RoleUser, secret)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := turn.Commit(ctx, []core.Message{core.NewMessage(core.RoleAssistant, secret)}); err != nil {
		t.Fatal(err)
	}
	if err := tp.Shutdown(ctx); err != nil { // flushes the batch
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	found := map[string]string{}
	for _, p := range recv.payloads {
		if bytes.Contains(p, []byte(secret)) {
			t.Fatal("message text exported without the opt-in")
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(p, &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					for _, kv := range s.Attributes {
						if kv.Key == "gen_ai.conversation.id" {
							found[s.Name] = kv.Value.GetStringValue()
						}
					}
				}
			}
		}
	}
	if found["agentmem.Begin"] != "t" || found["agentmem.Commit"] != "t" {
		t.Fatalf("exported operation spans with their thread: %v", found)
	}
}
