package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store/memstore"
	"github.com/agentmem/agentmem/core/vector"
)

// namedModel is a Model told apart by name.
type namedModel string

func (n namedModel) Generate(context.Context, string, string) (string, error) { return string(n), nil }

// fullConfig sets every Config field (tag a and b give two distinct values).
func fullConfig(tag string, n int) core.Config {
	return core.Config{
		LastMessages:              core.LastN(n),
		MessageHistory:            &core.MessageHistory{MaxTokens: 1000 * n, AtMaxRemoveTokens: core.Int(10 * n)},
		ReadOnly:                  core.Bool(n%2 == 0),
		RetainFullInput:           core.Bool(n%2 == 0),
		FilterIncompleteToolCalls: core.Bool(n%2 == 0),
		SemanticRecall: &core.SemanticRecall{TopK: n, MessageRange: &core.MessageRange{Before: n, After: n}, Scope: core.ScopeThread,
			MaxChunkChars: 100 * n, Threshold: 0.1 * float64(n),
			IndexConfig: vector.IndexConfig{Type: "hnsw-" + tag, Metric: "cosine-" + tag, HNSW: struct{ M, EfConstruction int }{n, 2 * n}},
			Hybrid:      &core.Hybrid{Alpha: core.Float(0.1 * float64(n))}},
		WorkingMemory: &core.WorkingMemoryConfig{Enabled: true, Template: "# " + tag, Schema: json.RawMessage(`{"title":"` + tag + `"}`), Scope: core.ScopeThread},
		GenerateTitle: &core.TitleConfig{Model: namedModel("title-" + tag), Instructions: "title " + tag, MinMessages: n},
		ObservationalMemory: &core.ObservationalMemoryConfig{Model: namedModel("om-" + tag),
			Observation: core.ObservationConfig{MessageTokens: 100 * n, MaxTokensPerBatch: 10 * n},
			Reflection:  core.ReflectionConfig{ObservationTokens: 1000 * n}, Scope: core.ScopeResource,
			Timeout: time.Duration(n) * time.Second, MaxUnobservedMessages: 10 * n,
			ObserverInstructions: "observe " + tag, ReflectorInstructions: "reflect " + tag, Instruction: "keep " + tag},
	}
}

// Mastra's getMergedThreadConfig deep-merges a per-call config over the
// instance config: every nested field set in the override replaces only
// that field. One case per field.
func TestGetMergedThreadConfigDeepMergesEveryField(t *testing.T) {
	b := fullConfig("b", 2)
	cases := []struct {
		name string
		over core.Config
		want func(c *core.Config)
	}{
		{"lastMessages", core.Config{LastMessages: b.LastMessages}, func(c *core.Config) { c.LastMessages = b.LastMessages }},
		{"readOnly", core.Config{ReadOnly: b.ReadOnly}, func(c *core.Config) { c.ReadOnly = b.ReadOnly }},
		{"retainFullInput", core.Config{RetainFullInput: b.RetainFullInput}, func(c *core.Config) { c.RetainFullInput = b.RetainFullInput }},
		{"filterIncompleteToolCalls", core.Config{FilterIncompleteToolCalls: b.FilterIncompleteToolCalls}, func(c *core.Config) { c.FilterIncompleteToolCalls = b.FilterIncompleteToolCalls }},
		{"messageHistory.maxTokens", core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 4000}}, func(c *core.Config) { c.MessageHistory.MaxTokens = 4000 }},
		{"messageHistory.atMaxRemoveTokens", core.Config{MessageHistory: &core.MessageHistory{AtMaxRemoveTokens: core.Int(7)}}, func(c *core.Config) { c.MessageHistory.AtMaxRemoveTokens = core.Int(7) }},
		{"semanticRecall.topK", core.Config{SemanticRecall: &core.SemanticRecall{TopK: 9}}, func(c *core.Config) { c.SemanticRecall.TopK = 9 }},
		{"semanticRecall.messageRange", core.Config{SemanticRecall: &core.SemanticRecall{MessageRange: &core.MessageRange{Before: 0, After: 3}}}, func(c *core.Config) { c.SemanticRecall.MessageRange = &core.MessageRange{Before: 0, After: 3} }},
		{"semanticRecall.scope", core.Config{SemanticRecall: &core.SemanticRecall{Scope: core.ScopeResource}}, func(c *core.Config) { c.SemanticRecall.Scope = core.ScopeResource }},
		{"semanticRecall.maxChunkChars", core.Config{SemanticRecall: &core.SemanticRecall{MaxChunkChars: 77}}, func(c *core.Config) { c.SemanticRecall.MaxChunkChars = 77 }},
		{"semanticRecall.threshold", core.Config{SemanticRecall: &core.SemanticRecall{Threshold: 0.9}}, func(c *core.Config) { c.SemanticRecall.Threshold = 0.9 }},
		{"semanticRecall.indexConfig.type", core.Config{SemanticRecall: &core.SemanticRecall{IndexConfig: vector.IndexConfig{Type: "flat"}}}, func(c *core.Config) { c.SemanticRecall.IndexConfig.Type = "flat" }},
		{"semanticRecall.indexConfig.metric", core.Config{SemanticRecall: &core.SemanticRecall{IndexConfig: vector.IndexConfig{Metric: "dotproduct"}}}, func(c *core.Config) { c.SemanticRecall.IndexConfig.Metric = "dotproduct" }},
		{"semanticRecall.indexConfig.hnsw.m", core.Config{SemanticRecall: &core.SemanticRecall{IndexConfig: vector.IndexConfig{HNSW: struct{ M, EfConstruction int }{M: 32}}}}, func(c *core.Config) { c.SemanticRecall.IndexConfig.HNSW.M = 32 }},
		{"semanticRecall.indexConfig.hnsw.efConstruction", core.Config{SemanticRecall: &core.SemanticRecall{IndexConfig: vector.IndexConfig{HNSW: struct{ M, EfConstruction int }{EfConstruction: 64}}}}, func(c *core.Config) { c.SemanticRecall.IndexConfig.HNSW.EfConstruction = 64 }},
		{"semanticRecall.hybrid.alpha", core.Config{SemanticRecall: &core.SemanticRecall{Hybrid: &core.Hybrid{Alpha: core.Float(0.5)}}}, func(c *core.Config) { c.SemanticRecall.Hybrid = &core.Hybrid{Alpha: core.Float(0.5)} }},
		{"semanticRecall.disabled", core.Config{SemanticRecall: &core.SemanticRecall{Disabled: true}}, func(c *core.Config) { c.SemanticRecall.Disabled = true }},
		{"workingMemory.scope", core.Config{WorkingMemory: &core.WorkingMemoryConfig{Scope: core.ScopeResource}}, func(c *core.Config) { c.WorkingMemory.Scope = core.ScopeResource }},
		{"workingMemory.template", core.Config{WorkingMemory: &core.WorkingMemoryConfig{Template: "# other"}}, func(c *core.Config) { c.WorkingMemory.Template = "# other" }},
		{"workingMemory.schema", core.Config{WorkingMemory: &core.WorkingMemoryConfig{Schema: json.RawMessage(`{"title":"x"}`)}}, func(c *core.Config) { c.WorkingMemory.Schema = json.RawMessage(`{"title":"x"}`) }},
		{"workingMemory.disabled", core.Config{WorkingMemory: &core.WorkingMemoryConfig{Disabled: true}}, func(c *core.Config) { c.WorkingMemory.Disabled = true }},
		{"generateTitle.model", core.Config{GenerateTitle: &core.TitleConfig{Model: namedModel("m2")}}, func(c *core.Config) { c.GenerateTitle.Model = namedModel("m2") }},
		{"generateTitle.instructions", core.Config{GenerateTitle: &core.TitleConfig{Instructions: "short"}}, func(c *core.Config) { c.GenerateTitle.Instructions = "short" }},
		{"generateTitle.minMessages", core.Config{GenerateTitle: &core.TitleConfig{MinMessages: 5}}, func(c *core.Config) { c.GenerateTitle.MinMessages = 5 }},
		{"generateTitle.background", core.Config{GenerateTitle: &core.TitleConfig{Background: true}}, func(c *core.Config) { c.GenerateTitle.Background = true }},
		{"generateTitle.disabled", core.Config{GenerateTitle: &core.TitleConfig{Disabled: true}}, func(c *core.Config) { c.GenerateTitle.Disabled = true }},
		{"observationalMemory.model", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: namedModel("x")}}, func(c *core.Config) { c.ObservationalMemory.Model = namedModel("x") }},
		{"observationalMemory.observerModel", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ObserverModel: namedModel("o")}}, func(c *core.Config) {
			c.ObservationalMemory.Model, c.ObservationalMemory.ObserverModel, c.ObservationalMemory.ReflectorModel = nil, namedModel("o"), namedModel("om-a")
		}},
		{"observationalMemory.reflectorModel", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ReflectorModel: namedModel("r")}}, func(c *core.Config) {
			c.ObservationalMemory.Model, c.ObservationalMemory.ObserverModel, c.ObservationalMemory.ReflectorModel = nil, namedModel("om-a"), namedModel("r")
		}},
		{"observationalMemory.observation.messageTokens", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{MessageTokens: 5}}}, func(c *core.Config) { c.ObservationalMemory.Observation.MessageTokens = 5 }},
		{"observationalMemory.observation.maxTokensPerBatch", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{MaxTokensPerBatch: 5}}}, func(c *core.Config) { c.ObservationalMemory.Observation.MaxTokensPerBatch = 5 }},
		{"observationalMemory.observation.bufferTokens", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{BufferTokens: 0.5}}}, func(c *core.Config) { c.ObservationalMemory.Observation.BufferTokens = 0.5 }},
		{"observationalMemory.observation.bufferActivation", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{BufferActivation: 0.7}}}, func(c *core.Config) { c.ObservationalMemory.Observation.BufferActivation = 0.7 }},
		{"observationalMemory.observation.blockAfter", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Observation: core.ObservationConfig{BlockAfter: 1.5}}}, func(c *core.Config) { c.ObservationalMemory.Observation.BlockAfter = 1.5 }},
		{"observationalMemory.reflection.bufferActivation", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Reflection: core.ReflectionConfig{BufferActivation: 0.4}}}, func(c *core.Config) { c.ObservationalMemory.Reflection.BufferActivation = 0.4 }},
		{"observationalMemory.reflection.blockAfter", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Reflection: core.ReflectionConfig{BlockAfter: 2}}}, func(c *core.Config) { c.ObservationalMemory.Reflection.BlockAfter = 2 }},
		{"observationalMemory.reflection.observationTokens", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Reflection: core.ReflectionConfig{ObservationTokens: 5}}}, func(c *core.Config) { c.ObservationalMemory.Reflection.ObservationTokens = 5 }},
		{"observationalMemory.scope", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Scope: core.ScopeThread}}, func(c *core.Config) { c.ObservationalMemory.Scope = core.ScopeThread }},
		{"observationalMemory.background", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Background: true}}, func(c *core.Config) { c.ObservationalMemory.Background = true }},
		{"observationalMemory.timeout", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Timeout: time.Minute}}, func(c *core.Config) { c.ObservationalMemory.Timeout = time.Minute }},
		{"observationalMemory.maxUnobservedMessages", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{MaxUnobservedMessages: 3}}, func(c *core.Config) { c.ObservationalMemory.MaxUnobservedMessages = 3 }},
		{"observationalMemory.observerInstructions", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ObserverInstructions: "o"}}, func(c *core.Config) { c.ObservationalMemory.ObserverInstructions = "o" }},
		{"observationalMemory.reflectorInstructions", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{ReflectorInstructions: "r"}}, func(c *core.Config) { c.ObservationalMemory.ReflectorInstructions = "r" }},
		{"observationalMemory.instruction", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Instruction: "i"}}, func(c *core.Config) { c.ObservationalMemory.Instruction = "i" }},
		{"observationalMemory.disabled", core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Disabled: true}}, func(c *core.Config) { c.ObservationalMemory.Disabled = true }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := fullConfig("a", 1)
			got := base.Merge(&c.over)
			want := fullConfig("a", 1)
			c.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("merged config differs from want at %v", configDiff("Config", reflect.ValueOf(got), reflect.ValueOf(want)))
			}
			if !reflect.DeepEqual(base, fullConfig("a", 1)) {
				t.Fatalf("merge changed its base at %v", configDiff("Config", reflect.ValueOf(base), reflect.ValueOf(fullConfig("a", 1))))
			}
		})
	}
	// Enabled in an override turns working memory on; false leaves the base.
	off := fullConfig("a", 1)
	off.WorkingMemory.Enabled = false
	if got := off.Merge(&core.Config{WorkingMemory: &core.WorkingMemoryConfig{Enabled: true}}); !got.WorkingMemory.Enabled || got.WorkingMemory.Template != "# a" {
		t.Fatalf("workingMemory.enabled merge = %+v", got.WorkingMemory)
	}
	on := fullConfig("a", 1)
	if got := on.Merge(&core.Config{WorkingMemory: &core.WorkingMemoryConfig{Scope: core.ScopeResource}}); !got.WorkingMemory.Enabled {
		t.Fatal("an override without Enabled turned working memory off")
	}
	// A title callback is a func: compared by presence.
	base := fullConfig("a", 1)
	called := ""
	got := base.Merge(&core.Config{GenerateTitle: &core.TitleConfig{OnTitle: func(_, title string) { called = title }}})
	if got.GenerateTitle.OnTitle == nil || got.GenerateTitle.Instructions != "title a" {
		t.Fatalf("generateTitle.onTitle merge = %+v", got.GenerateTitle)
	}
	got.GenerateTitle.OnTitle("t", "x")
	if called != "x" || base.GenerateTitle.OnTitle != nil {
		t.Fatal("generateTitle.onTitle not merged alone")
	}
}

// configDiff lists the paths at which two configs differ, each with both
// values. Funcs (which JSON cannot show) compare by being set.
func configDiff(path string, a, b reflect.Value) []string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return []string{fmt.Sprintf("%s: nil %v, nil %v", path, a.IsNil(), b.IsNil())}
			}
			return nil
		}
		return configDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		var out []string
		for i := 0; i < a.NumField(); i++ {
			out = append(out, configDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))...)
		}
		return out
	case reflect.Func:
		if a.IsNil() != b.IsNil() {
			return []string{fmt.Sprintf("%s: set %v, set %v", path, !a.IsNil(), !b.IsNil())}
		}
		return nil
	}
	// fmt reads unexported fields, which Interface refuses.
	if sa, sb := fmt.Sprintf("%#v", a), fmt.Sprintf("%#v", b); sa != sb {
		return []string{fmt.Sprintf("%s: %s, %s", path, sa, sb)}
	}
	return nil
}

// Config is resolved and copied once in New: neither the caller's Config
// after New nor the copy Config returns changes the live token budget.
func TestConfigIsCopiedOnceInNew(t *testing.T) {
	s := memstore.New()
	var msgs []core.Message
	for i := 0; i < 6; i++ {
		msgs = append(msgs, userAt(fmt.Sprint("m", i), "t", "r", text(fmt.Sprint("m", i), 100), T(i)))
	}
	seed(t, s, "t", "r", msgs...)
	cfg := core.Config{MessageHistory: &core.MessageHistory{MaxTokens: 10000, AtMaxRemoveTokens: core.Int(0)}}
	m := newMem(t, s, cfg)
	prompt := func() int {
		t.Helper()
		turn, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: &core.Config{ReadOnly: core.Bool(true)}})
		if err != nil {
			t.Fatal(err)
		}
		return len(turn.Messages())
	}
	if n := prompt(); n != 6 {
		t.Fatalf("prompt holds %d messages, want 6", n)
	}
	cfg.MessageHistory.MaxTokens = 150
	*cfg.MessageHistory.AtMaxRemoveTokens = 100
	if n := prompt(); n != 6 {
		t.Fatalf("caller's Config changed after New shrank the prompt to %d", n)
	}
	got := m.Config()
	got.MessageHistory.MaxTokens = 150
	if n := prompt(); n != 6 || m.Config().MessageHistory.MaxTokens != 10000 {
		t.Fatalf("Config() copy aliased the live budget: prompt %d, budget %d", n, m.Config().MessageHistory.MaxTokens)
	}
	// Concurrent turns with per-call overrides while the caller mutates its
	// Config and a Config() copy (go test -race).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the one writer of the caller's Config
		defer wg.Done()
		for i := 0; i < 200; i++ {
			cfg.MessageHistory.MaxTokens = i
		}
	}()
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				c := m.Config()
				c.MessageHistory.MaxTokens = g
				over := &core.Config{ReadOnly: core.Bool(true), MessageHistory: &core.MessageHistory{MaxTokens: 5000 + g}}
				if _, err := m.Begin(ctx, core.TurnRequest{ThreadID: "t", ResourceID: "r", Config: over}); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if n := prompt(); n != 6 {
		t.Fatalf("prompt after concurrent turns holds %d", n)
	}
}
