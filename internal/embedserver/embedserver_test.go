package embedserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/core/vector/local"
	"github.com/agentmem/agentmem/internal/embedserver"
)

func TestContract(t *testing.T) {
	srv := embedserver.New(local.NewHashEmbedder(16), "hash-16")
	srv.FailOn = "FAIL_EMBEDDING"
	hs := httptest.NewServer(srv)
	defer hs.Close()

	for _, p := range []string{"/.well-known/ready", "/.well-known/live"} {
		res, err := http.Get(hs.URL + p)
		if err != nil || res.StatusCode != http.StatusNoContent {
			t.Fatalf("GET %s: %v %v", p, res, err)
		}
	}
	var meta struct {
		Model struct {
			Name string
			Dims int
		}
	}
	get(t, hs.URL+"/meta", "", http.StatusOK, &meta)
	if meta.Model.Name != "hash-16" || meta.Model.Dims != 16 {
		t.Fatalf("meta %+v", meta)
	}

	var vec struct {
		Text   string
		Vector []float32
		Dim    int
	}
	body := `{"text":"Hello world","dims":0,"vector":null,"error":"","config":{"pooling_strategy":"masked_mean","task_type":"passage"}}`
	get(t, hs.URL+"/vectors", body, http.StatusOK, &vec)
	want := local.NewHashEmbedder(16).EmbedOne("Hello world")
	if vec.Text != "Hello world" || vec.Dim != 16 || len(vec.Vector) != 16 || vec.Vector[3] != want[3] {
		t.Fatalf("vectors: %+v", vec)
	}
	get(t, hs.URL+"/vectors/", `{"text":"x"}`, http.StatusOK, &vec)

	var e struct{ Error string }
	get(t, hs.URL+"/vectors", `{"text":"a FAIL_EMBEDDING b"}`, http.StatusInternalServerError, &e)
	if !strings.Contains(e.Error, "FAIL_EMBEDDING") {
		t.Fatalf("error body %+v", e)
	}
	get(t, hs.URL+"/vectors", `not json`, http.StatusBadRequest, &e)

	var ol struct {
		Model      string
		Embeddings [][]float32
	}
	get(t, hs.URL+"/api/embed", `{"model":"m","input":["a","b"]}`, http.StatusOK, &ol)
	if ol.Model != "m" || len(ol.Embeddings) != 2 || len(ol.Embeddings[1]) != 16 {
		t.Fatalf("ollama: %+v", ol)
	}
	get(t, hs.URL+"/api/embed", `{"model":"m","input":"one"}`, http.StatusOK, &ol)
	if len(ol.Embeddings) != 1 {
		t.Fatalf("ollama single input: %+v", ol)
	}
	if srv.Calls() != 6 {
		t.Fatalf("calls %d", srv.Calls())
	}
}

// get GETs url (POSTs body when not empty), checks the status and decodes the JSON reply.
func get(t *testing.T, url, body string, status int, out any) {
	t.Helper()
	var res *http.Response
	var err error
	if body == "" {
		res, err = http.Get(url)
	} else {
		res, err = http.Post(url, "application/json", strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != status || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: status %d (%s), want %d", url, res.StatusCode, res.Header.Get("Content-Type"), status)
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}
