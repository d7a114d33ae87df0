package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// wmSchema is a compiled working-memory JSON Schema with what is derived
// from it once: the validator, the template skeleton and the tool parameters.
type wmSchema struct {
	raw      json.RawMessage
	validate *jsonschema.Schema
	skeleton string          // compact JSON skeleton; "" when empty
	params   json.RawMessage // tool parameters {memory: <schema>}
	// memoryProp reports a top-level property named "memory", which makes
	// an unwrapped update ambiguous with the tool's {memory: ...} wrapper.
	memoryProp bool
}

const wmSchemaURL = "agentmem://working-memory/schema.json"

// compileWorkingMemorySchema compiles a schema and derives its validator,
// skeleton and tool parameters. New resolves the instance config once, so
// this runs once per Memory (and per call only for a per-call schema).
func compileWorkingMemorySchema(raw json.RawMessage) (*wmSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(noSchemaLoader{})
	if err := c.AddResource(wmSchemaURL, doc); err != nil {
		return nil, err
	}
	v, err := c.Compile(wmSchemaURL)
	if err != nil {
		return nil, err
	}
	params, err := toolParamsForSchema(raw)
	if err != nil {
		return nil, err
	}
	sch := &wmSchema{raw: append(json.RawMessage(nil), raw...), validate: v, params: params}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &top) == nil {
		_, sch.memoryProp = top.Properties["memory"]
	}
	var b bytes.Buffer
	writeSkeleton(&b, raw, raw, 0)
	if s := b.String(); s != "{}" && s != "null" {
		sch.skeleton = s
	}
	return sch, nil
}

// noSchemaLoader refuses external references: a schema must be
// self-contained, nothing is read from files or the network.
type noSchemaLoader struct{}

// Load refuses every url: a schema must not reference another document.
func (noSchemaLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q is not supported", url)
}

// toolParamsForSchema wraps the user's schema as the memory argument.
// Definitions move to the root so that local $refs keep resolving.
func toolParamsForSchema(raw json.RawMessage) (json.RawMessage, error) {
	var user map[string]json.RawMessage
	if err := json.Unmarshal(raw, &user); err != nil {
		return nil, err
	}
	root := map[string]any{"type": "object", "required": []string{"memory"}}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := user[k]; ok {
			root[k] = d
			delete(user, k)
		}
	}
	delete(user, "$schema")
	delete(user, "$id")
	root["properties"] = map[string]any{"memory": user}
	return json.Marshal(root)
}

// orderedObject decodes a JSON object keeping its key order.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, nil, false
	}
	keys := make([]string, 0, len(m))
	seen := make(map[string]bool, len(m))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, false
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys, m, true
}

// writeSkeleton writes an empty example value of a schema: "" for strings, 0
// for numbers, false for booleans, [] for arrays, objects recursed, and the
// schema's default where one is given.
func writeSkeleton(b *bytes.Buffer, root, raw json.RawMessage, depth int) {
	_, sch, ok := orderedObject(raw)
	if !ok || depth > 16 {
		b.WriteString("null")
		return
	}
	if d, ok := sch["default"]; ok {
		var c bytes.Buffer
		if json.Compact(&c, d) == nil {
			b.Write(c.Bytes())
			return
		}
	}
	if ref, ok := stringField(sch, "$ref"); ok {
		if target, ok := resolveLocalRef(root, ref); ok {
			writeSkeleton(b, root, target, depth+1)
			return
		}
		b.WriteString("null")
		return
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		var alts []json.RawMessage
		if json.Unmarshal(sch[k], &alts) == nil {
			for _, alt := range alts {
				if schemaType(alt) != "null" {
					writeSkeleton(b, root, alt, depth+1)
					return
				}
			}
		}
	}
	switch schemaType(raw) {
	case "string":
		b.WriteString(`""`)
	case "number", "integer":
		b.WriteString("0")
	case "boolean":
		b.WriteString("false")
	case "array":
		b.WriteString("[]")
	case "object":
		b.WriteByte('{')
		keys, props, _ := orderedObject(sch["properties"])
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeSkeleton(b, root, props[k], depth+1)
		}
		b.WriteByte('}')
	default:
		var enum []json.RawMessage
		if json.Unmarshal(sch["enum"], &enum) == nil && len(enum) > 0 {
			var c bytes.Buffer
			if json.Compact(&c, enum[0]) == nil {
				b.Write(c.Bytes())
				return
			}
		}
		b.WriteString("null")
	}
}

// schemaType returns the (first non-null) type of a schema, inferring object
// and array from properties and items.
func schemaType(raw json.RawMessage) string {
	var sch map[string]json.RawMessage
	if json.Unmarshal(raw, &sch) != nil {
		return ""
	}
	if t, ok := stringField(sch, "type"); ok {
		return t
	}
	var ts []string
	if json.Unmarshal(sch["type"], &ts) == nil {
		for _, t := range ts {
			if t != "null" {
				return t
			}
		}
		if len(ts) > 0 {
			return "null"
		}
	}
	if _, ok := sch["properties"]; ok {
		return "object"
	}
	if _, ok := sch["items"]; ok {
		return "array"
	}
	return ""
}

func stringField(m map[string]json.RawMessage, k string) (string, bool) {
	var s string
	if v, ok := m[k]; !ok || json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// resolveLocalRef follows a "#/a/b" JSON pointer within root.
func resolveLocalRef(root json.RawMessage, ref string) (json.RawMessage, bool) {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// decodeJSON parses one JSON value, keeping numbers exact.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

// encodeJSON encodes v compactly without HTML escaping.
func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// mergeWorkingMemory deep-merges patch into base without modifying either:
// objects recurse, arrays and primitives replace, null deletes a key (also
// inside objects that are new to base).
func mergeWorkingMemory(base, patch map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(patch))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(out, k)
		case map[string]any:
			bv, _ := out[k].(map[string]any)
			out[k] = mergeWorkingMemory(bv, pv)
		default:
			out[k] = v
		}
	}
	return out
}
