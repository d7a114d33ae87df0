package workingmem

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func mustCompile(t *testing.T, raw string) *Schema {
	t.Helper()
	sch, err := Compile(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Compile(%s): %v", raw, err)
	}
	return sch
}

func TestSkeletonFollowsTheSchema(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"types, defaults, refs and key order", `{
		  "type": "object",
		  "properties": {
		    "name": {"type": "string"},
		    "age": {"type": ["integer", "null"]},
		    "vip": {"type": "boolean"},
		    "tags": {"type": "array", "items": {"type": "string"}},
		    "tier": {"type": "string", "default": "free"},
		    "home": {"$ref": "#/definitions/place"},
		    "misc": {}
		  },
		  "definitions": {"place": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "number"}}}}
		}`, `{"name":"","age":0,"vip":false,"tags":[],"tier":"free","home":{"city":"","zip":0},"misc":null}`},
		{"inferred types, enum and alternatives", `{
		  "properties": {
		    "list": {"items": {"type": "string"}},
		    "color": {"enum": ["red", "blue"]},
		    "maybe": {"anyOf": [{"type": "null"}, {"type": "number"}]},
		    "escaped": {"$ref": "#/$defs/a~1b"}
		  },
		  "$defs": {"a/b": {"type": "boolean"}}
		}`, `{"list":[],"color":"red","maybe":0,"escaped":false}`},
		{"recursion stops", `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, ""},
		{"empty object", `{"type":"object"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sch := mustCompile(t, tc.schema)
			if tc.name == "recursion stops" {
				if !strings.Contains(sch.skeleton, `"next":null`) || strings.Count(sch.skeleton, "next") > maxSkeletonDepth {
					t.Fatalf("recursive skeleton = %s", sch.skeleton)
				}
				return
			}
			if sch.skeleton != tc.want {
				t.Fatalf("skeleton = %s, want %s", sch.skeleton, tc.want)
			}
		})
	}
}

// Compile refuses a schema with a dangling $ref; the skeleton writer still
// renders one as null rather than failing.
func TestSkeletonOfADanglingRefIsNull(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/nowhere"},"y":{"$ref":"other.json"}}}`)
	var b bytes.Buffer
	writeSkeleton(&b, raw, raw, 0)
	if got := b.String(); got != `{"x":null,"y":null}` {
		t.Fatalf("skeleton = %s", got)
	}
}

func TestToolParamsWrapTheSchema(t *testing.T) {
	sch := mustCompile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"x","type":"object",
	  "properties":{"home":{"$ref":"#/definitions/place"}},"definitions":{"place":{"type":"string"}}}`)
	var params struct {
		Type        string
		Required    []string
		Properties  map[string]map[string]json.RawMessage
		Definitions map[string]json.RawMessage
	}
	p := ToolParams(sch)
	if err := json.Unmarshal(p, &params); err != nil {
		t.Fatal(err)
	}
	mem := params.Properties["memory"]
	if params.Type != "object" || len(params.Required) != 1 || params.Required[0] != "memory" || mem["properties"] == nil ||
		mem["$schema"] != nil || mem["$id"] != nil || mem["definitions"] != nil || params.Definitions["place"] == nil {
		t.Fatalf("params = %s", p)
	}
	p[0] = 'X'
	if ToolParams(sch)[0] != '{' {
		t.Fatal("ToolParams shares its bytes with the compiled schema")
	}
	var md map[string]any
	if err := json.Unmarshal(ToolParams(nil), &md); err != nil || md["properties"].(map[string]any)["memory"].(map[string]any)["type"] != "string" {
		t.Fatalf("markdown params = %s (%v)", ToolParams(nil), err)
	}
	if ToolDescription(nil) == ToolDescription(sch) {
		t.Fatal("one description for both modes")
	}
}

func TestCompileRefusesBadSchemas(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"x":{"$ref":"https://example.invalid/s.json"}}}`,
		`{"type":"object","properties":{"x":{"$ref":"file:///etc/passwd"}}}`,
		`{"type":"object","properties":{"x":{"$ref":"#/nowhere"}}}`,
		`{"type":12}`,
		`{"type":"object"`,
		`[1,2]`,
	} {
		if _, err := Compile(json.RawMessage(raw)); err == nil {
			t.Errorf("Compile(%s) succeeded", raw)
		}
	}
}

func TestCompiledFromAndValidate(t *testing.T) {
	raw := `{"type":"object","properties":{"n":{"type":"integer"}}}`
	sch := mustCompile(t, raw)
	if !sch.CompiledFrom(json.RawMessage(raw)) || sch.CompiledFrom(json.RawMessage(`{"type":"object"}`)) {
		t.Fatal("CompiledFrom does not compare the source")
	}
	ok, _ := DecodeJSON(`{"n":12345678901234567890}`)
	bad, _ := DecodeJSON(`{"n":"x"}`)
	if err := sch.Validate(ok); err != nil {
		t.Fatalf("valid value refused: %v", err)
	}
	if err := sch.Validate(bad); err == nil {
		t.Fatal("invalid value accepted")
	}
}
