package workingmem

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxSkeletonDepth stops the skeleton of a recursive schema.
const maxSkeletonDepth = 16

// writeSkeleton writes an empty example value of a schema: "" for strings, 0
// for numbers, false for booleans, [] for arrays, objects recursed, and the
// schema's default where one is given.
func writeSkeleton(b *bytes.Buffer, root, raw json.RawMessage, depth int) {
	_, sch, ok := orderedObject(raw)
	if !ok || depth > maxSkeletonDepth {
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

// orderedObject decodes a JSON object keeping its key order, so that the
// skeleton lists properties as the schema's author wrote them.
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
