package core

import (
	"encoding/json"
	"strings"
)

const wmEmptyTemplateMsg = "Attempted to replace existing working memory with empty template. Update skipped to prevent data loss."

// normalizeSpace collapses all whitespace runs to one space.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseMarkdownUpdate extracts the new markdown from the tool arguments
// {"memory": "..."}; a non-string memory is stored JSON-encoded. ok is false
// when there is nothing to store; res then tells the model why.
func parseMarkdownUpdate(args json.RawMessage) (data string, res wmResult, ok bool) {
	raw := strings.TrimSpace(string(args))
	if raw == "" {
		return "", wmNoData, false
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return "", wmFail(`Invalid arguments for updateWorkingMemory: ` + err.Error() + `. Expected {"memory": "<markdown>"}.`), false
	}
	if obj, isObj := v.(map[string]any); isObj {
		v = obj["memory"]
	}
	switch x := v.(type) {
	case nil:
		return "", wmNoData, false
	case string:
		return x, wmResult{Success: true}, true
	default:
		s, err := encodeJSON(x)
		if err != nil {
			return "", wmFail("Invalid memory: " + err.Error()), false
		}
		return s, wmResult{Success: true}, true
	}
}

// markdownUpdate replaces the stored markdown, except that the bare template
// never overwrites existing notes.
func markdownUpdate(template, data string) func(string) (string, bool, wmResult) {
	tpl, next := normalizeSpace(template), normalizeSpace(data)
	return func(cur string) (string, bool, wmResult) {
		if next == tpl {
			if c := normalizeSpace(cur); c != "" && c != tpl {
				return cur, false, wmFail(wmEmptyTemplateMsg)
			}
		}
		return data, true, wmResult{Success: true}
	}
}

// parseSchemaUpdate extracts the object to merge from the tool arguments. It
// accepts {"memory": {...}}, the object without the wrapper, and either of
// them (or the memory value) as a JSON string. A nil patch means nothing is
// stored; res then tells the model why.
func parseSchemaUpdate(sch *wmSchema, args json.RawMessage) (patch map[string]any, res wmResult) {
	raw := strings.TrimSpace(string(args))
	if raw == "" {
		return nil, wmNoData
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, wmParseFail(err, raw)
	}
	if s, ok := v.(string); ok {
		if v, err = decodeJSON(s); err != nil {
			return nil, wmParseFail(err, s)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if mem, has := obj["memory"]; has && (len(obj) == 1 || !sch.memoryProp) {
			v = mem
			if s, ok := v.(string); ok {
				if v, err = decodeJSON(s); err != nil {
					return nil, wmParseFail(err, s)
				}
			}
		} else if len(obj) == 0 {
			return nil, wmNoData
		}
	}
	switch x := v.(type) {
	case nil:
		return nil, wmNoData
	case map[string]any:
		return x, wmResult{Success: true}
	}
	return nil, wmFail("Working memory must be a JSON object matching the schema; nothing was stored.")
}

func wmParseFail(err error, raw string) wmResult {
	return wmFail("Failed to parse working memory input as JSON: " + err.Error() + ". Raw input: " + truncate(raw, 500))
}

// schemaUpdate deep-merges patch into the stored object (invalid stored JSON
// starts fresh) and stores the result only if it matches the schema.
func schemaUpdate(sch *wmSchema, patch map[string]any) func(string) (string, bool, wmResult) {
	return func(cur string) (string, bool, wmResult) {
		var base map[string]any
		if v, err := decodeJSON(cur); err == nil {
			base, _ = v.(map[string]any)
		}
		merged := mergeWorkingMemory(base, patch)
		if err := sch.validate.Validate(merged); err != nil {
			return cur, false, wmFail("Working memory update does not match the schema; nothing was stored. " + validationDetail(err))
		}
		next, err := encodeJSON(merged)
		if err != nil {
			return cur, false, wmFail("Working memory update cannot be encoded: " + err.Error())
		}
		return next, true, wmResult{Success: true}
	}
}

// validationDetail renders a schema validation error without the schema URL
// headline, one cause per clause.
func validationDetail(err error) string {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "jsonschema validation failed") {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	return "Validation errors: " + strings.Join(lines, "; ")
}
