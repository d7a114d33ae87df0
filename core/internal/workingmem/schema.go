package workingmem

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled working-memory JSON Schema with what is derived from
// it once: the validator, the template skeleton and the tool parameters.
type Schema struct {
	raw      json.RawMessage
	validate *jsonschema.Schema
	skeleton string          // compact JSON skeleton; "" when empty
	params   json.RawMessage // tool parameters {memory: <schema>}
	// memoryProp reports a top-level property named "memory", which makes
	// an unwrapped update ambiguous with the tool's {memory: ...} wrapper.
	memoryProp bool
}

const schemaURL = "agentmem://working-memory/schema.json"

// Compile compiles a schema and derives its validator, skeleton and tool
// parameters. Compiling is costly: callers compile a configured schema once.
func Compile(raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(noSchemaLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	v, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	params, err := toolParamsForSchema(raw)
	if err != nil {
		return nil, err
	}
	sch := &Schema{raw: append(json.RawMessage(nil), raw...), validate: v, params: params}
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

// CompiledFrom reports whether s was compiled from raw, so that an unchanged
// schema is not compiled again.
func (s *Schema) CompiledFrom(raw json.RawMessage) bool { return bytes.Equal(s.raw, raw) }

// Validate checks a decoded JSON value (see DecodeJSON) against the schema.
func (s *Schema) Validate(v any) error { return s.validate.Validate(v) }

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
