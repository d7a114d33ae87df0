package workingmem

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// apply parses args and runs the update on cur, as the tool does.
func apply(t *testing.T, sch *Schema, template, cur, args string) (string, bool, Result) {
	t.Helper()
	u, res := ParseUpdate(sch, template, json.RawMessage(args))
	if u == nil {
		return cur, false, res
	}
	return u(cur)
}

func TestMarkdownUpdate(t *testing.T) {
	const tpl = "# User\n- **Name**: \n- **City**: \n"
	for _, tc := range []struct {
		name, cur, args string
		next            string
		write           bool
		success         bool
		msg             string // substring of the result message
	}{
		{"replace", "old", `{"memory":"- Name: Ann"}`, "- Name: Ann", true, true, ""},
		{"template on empty", "", `{"memory":` + quote(tpl) + `}`, tpl, true, true, ""},
		{"template over the template", tpl, `{"memory":` + quote(tpl) + `}`, tpl, true, true, ""},
		{"template over data", "- Name: Ann", `{"memory":` + quote(tpl) + `}`, "- Name: Ann", false, false, "empty template"},
		{"template variant over data", "- Name: Ann", `{"memory":"  # User\n\n- **Name**:\n-   **City**:   "}`, "- Name: Ann", false, false, "empty template"},
		{"CRLF template over data", "- Name: Ann", `{"memory":` + quote(strings.ReplaceAll(tpl, "\n", "\r\n")) + `}`, "- Name: Ann", false, false, "empty template"},
		{"bare string", "old", `"- Name: Bo"`, "- Name: Bo", true, true, ""},
		{"object memory is stored as JSON", "", `{"memory":{"name":"<Ann>"}}`, `{"name":"<Ann>"}`, true, true, ""},
		{"no memory", "old", `{}`, "old", false, true, "unchanged"},
		{"null memory", "old", `{"memory":null}`, "old", false, true, "unchanged"},
		{"no arguments", "old", ` `, "old", false, true, "unchanged"},
		{"broken arguments", "old", `{"memory":`, "old", false, false, "Invalid arguments for " + ToolName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, write, res := apply(t, nil, tpl, tc.cur, tc.args)
			if next != tc.next || write != tc.write || res.Success != tc.success || !strings.Contains(res.Message, tc.msg) {
				t.Fatalf("got (%q, %v, %+v), want (%q, %v, success %v, %q)", next, write, res, tc.next, tc.write, tc.success, tc.msg)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const profileSchema = `{
  "type": "object",
  "properties": {
    "about": {"type": "object", "properties": {"name": {"type": "string"}, "location": {"type": "string"}}},
    "tags": {"type": "array", "items": {"type": "string"}},
    "visits": {"type": "integer"},
    "tier": {"type": "string", "enum": ["free", "pro"]}
  }
}`

func TestSchemaUpdateArgumentForms(t *testing.T) {
	sch := mustCompile(t, profileSchema)
	const cur = `{"about":{"name":"Jordan"}}`
	want := map[string]any{"about": map[string]any{"name": "Jordan"}, "visits": json.Number("3")}
	for _, args := range []string{
		`{"memory":{"visits":3}}`,
		`{"visits":3}`,
		`{"memory":"{\"visits\":3}"}`,
		`"{\"memory\":{\"visits\":3}}"`,
		`"{\"visits\":3}"`,
	} {
		next, write, res := apply(t, sch, "", cur, args)
		got, err := DecodeJSON(next)
		if err != nil || !write || !res.Success || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: (%s, %v, %+v)", args, next, write, res)
		}
	}
}

func TestSchemaUpdateRefusals(t *testing.T) {
	sch := mustCompile(t, profileSchema)
	const cur = `{"visits":1}`
	for _, tc := range []struct{ args, msg string }{
		{`{"memory":"{not json"}`, "Failed to parse working memory input as JSON: "},
		{`{"memory":"{not json"}`, "Raw input: {not json"},
		{`not json`, "Raw input: not json"},
		{`{"memory":{"visits":"many"}}`, "does not match the schema"},
		{`{"memory":{"tier":"gold"}}`, "Validation errors: "},
		{`{"memory":{"tags":[1]}}`, "does not match the schema"},
		{`{"memory":[1,2]}`, "must be a JSON object"},
		{`{"memory":7}`, "must be a JSON object"},
	} {
		next, write, res := apply(t, sch, "", cur, tc.args)
		if next != cur || write || res.Success || !strings.Contains(res.Message, tc.msg) {
			t.Errorf("%s: (%s, %v, %+v), want a refusal with %q", tc.args, next, write, res, tc.msg)
		}
	}
	for _, args := range []string{`{"memory":null}`, `{}`, `null`, ``} {
		if next, write, res := apply(t, sch, "", cur, args); next != cur || write || !res.Success || !strings.Contains(res.Message, "unchanged") {
			t.Errorf("%s: (%s, %v, %+v), want nothing to store", args, next, write, res)
		}
	}
	if _, _, res := apply(t, sch, "", cur, `{"memory":"`+strings.Repeat("x", 2*maxEchoedInput)+`"}`); len(res.Message) > 2*maxEchoedInput {
		t.Fatalf("unparsable input echoed in full: %d bytes", len(res.Message))
	}
}

// The validation detail drops the schema URL headline and keeps one clause
// per cause.
func TestValidationDetail(t *testing.T) {
	sch := mustCompile(t, profileSchema)
	_, _, res := apply(t, sch, "", "", `{"memory":{"visits":"x","tier":"gold"}}`)
	if strings.Contains(res.Message, schemaURL) || strings.Contains(res.Message, "\n") ||
		!strings.Contains(res.Message, "visits") || !strings.Contains(res.Message, "tier") {
		t.Fatalf("result = %q", res.Message)
	}
}

// A schema with its own "memory" property makes {"memory": ...} ambiguous:
// with other keys beside it, the object is the update itself.
func TestSchemaWithAMemoryProperty(t *testing.T) {
	sch := mustCompile(t, `{"type":"object","properties":{"memory":{"type":"string"},"n":{"type":"integer"}}}`)
	next, _, res := apply(t, sch, "", "", `{"memory":"kept","n":1}`)
	if !res.Success || next != `{"memory":"kept","n":1}` {
		t.Fatalf("unwrapped update = %s %+v", next, res)
	}
	next, _, res = apply(t, sch, "", "", `{"memory":{"memory":"inner"}}`)
	if !res.Success || next != `{"memory":"inner"}` {
		t.Fatalf("wrapped update = %s %+v", next, res)
	}
	plain := mustCompile(t, `{"type":"object"}`)
	if next, _, _ := apply(t, plain, "", "", `{"memory":{"a":1},"b":2}`); next != `{"a":1}` {
		t.Fatalf("wrapper beside other keys = %s", next)
	}
}

// Stored data that is not a JSON object (Markdown from before a schema was
// configured) is replaced by the first valid merge.
func TestSchemaUpdateStartsFreshFromInvalidData(t *testing.T) {
	sch := mustCompile(t, profileSchema)
	for _, cur := range []string{"# old markdown", `[1]`, `"s"`} {
		if next, write, res := apply(t, sch, "", cur, `{"memory":{"visits":1}}`); next != `{"visits":1}` || !write || !res.Success {
			t.Errorf("from %q: (%s, %v, %+v)", cur, next, write, res)
		}
	}
}

func TestReplaceAndResultJSON(t *testing.T) {
	if next, write, res := Replace("x")("y"); next != "x" || !write || !res.Success {
		t.Fatalf("Replace = (%q, %v, %+v)", next, write, res)
	}
	if got := string(Fail("no").JSON()); got != `{"success":false,"message":"no"}` {
		t.Fatalf("Fail JSON = %s", got)
	}
	if got := string(stored.JSON()); got != `{"success":true}` {
		t.Fatalf("success JSON = %s", got)
	}
}
