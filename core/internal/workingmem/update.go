package workingmem

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Update computes the working memory to store from the current one: the new
// data, whether to write it, and the result to report to the model. It is
// re-run on the fresh data when a compare-and-set loses a race.
type Update func(cur string) (next string, write bool, res Result)

const emptyTemplateMsg = "Attempted to replace existing working memory with empty template. Update skipped to prevent data loss."

// ParseUpdate turns the tool arguments into an update: with a schema the
// argument object is deep-merged into the stored one, else the Markdown
// replaces the stored notes (template is the configured Markdown template).
// A nil Update means nothing is to be stored; res then tells the model why.
func ParseUpdate(sch *Schema, template string, args json.RawMessage) (Update, Result) {
	if sch != nil {
		patch, res := parseSchemaUpdate(sch, args)
		if patch == nil {
			return nil, res
		}
		return schemaUpdate(sch, patch), res
	}
	data, res, ok := parseMarkdownUpdate(args)
	if !ok {
		return nil, res
	}
	return markdownUpdate(template, data), res
}

// Replace is the update that stores data as it is.
func Replace(data string) Update {
	return func(string) (string, bool, Result) { return data, true, stored }
}

// parseMarkdownUpdate extracts the new markdown from the tool arguments
// {"memory": "..."}; a non-string memory is stored JSON-encoded. ok is false
// when there is nothing to store; res then tells the model why.
func parseMarkdownUpdate(args json.RawMessage) (data string, res Result, ok bool) {
	raw := strings.TrimSpace(string(args))
	if raw == "" {
		return "", noData, false
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return "", Fail(`Invalid arguments for ` + ToolName + `: ` + err.Error() + `. Expected {"memory": "<markdown>"}.`), false
	}
	if obj, isObj := v.(map[string]any); isObj {
		v = obj["memory"]
	}
	switch x := v.(type) {
	case nil:
		return "", noData, false
	case string:
		return x, stored, true
	default:
		s, err := encodeJSON(x)
		if err != nil {
			return "", Fail("Invalid memory: " + err.Error()), false
		}
		return s, stored, true
	}
}

// markdownUpdate replaces the stored markdown, except that the bare template
// never overwrites existing notes.
func markdownUpdate(template, data string) Update {
	tpl, next := normalizeSpace(template), normalizeSpace(data)
	return func(cur string) (string, bool, Result) {
		if next == tpl {
			if c := normalizeSpace(cur); c != "" && c != tpl {
				return cur, false, Fail(emptyTemplateMsg)
			}
		}
		return data, true, stored
	}
}

// normalizeSpace collapses all whitespace runs to one space.
func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// parseSchemaUpdate extracts the object to merge from the tool arguments. It
// accepts {"memory": {...}}, the object without the wrapper, and either of
// them (or the memory value) as a JSON string, since models send all of
// these. A nil patch means nothing is stored; res then tells the model why.
func parseSchemaUpdate(sch *Schema, args json.RawMessage) (patch map[string]any, res Result) {
	raw := strings.TrimSpace(string(args))
	if raw == "" {
		return nil, noData
	}
	v, err := DecodeJSON(raw)
	if err != nil {
		return nil, parseFail(err, raw)
	}
	if s, ok := v.(string); ok {
		if v, err = DecodeJSON(s); err != nil {
			return nil, parseFail(err, s)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if mem, has := obj["memory"]; has && (len(obj) == 1 || !sch.memoryProp) {
			v = mem
			if s, ok := v.(string); ok {
				if v, err = DecodeJSON(s); err != nil {
					return nil, parseFail(err, s)
				}
			}
		} else if len(obj) == 0 {
			return nil, noData
		}
	}
	switch x := v.(type) {
	case nil:
		return nil, noData
	case map[string]any:
		return x, stored
	}
	return nil, Fail("Working memory must be a JSON object matching the schema; nothing was stored.")
}

// maxEchoedInput caps how much of an unparsable input the result echoes.
const maxEchoedInput = 500

func parseFail(err error, raw string) Result {
	return Fail("Failed to parse working memory input as JSON: " + err.Error() + ". Raw input: " + truncate(raw, maxEchoedInput))
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return strings.TrimSpace(string([]rune(s)[:n]))
}

// schemaUpdate deep-merges patch into the stored object (invalid stored JSON
// starts fresh) and stores the result only if it matches the schema.
func schemaUpdate(sch *Schema, patch map[string]any) Update {
	return func(cur string) (string, bool, Result) {
		var base map[string]any
		if v, err := DecodeJSON(cur); err == nil {
			base, _ = v.(map[string]any)
		}
		merged := merge(base, patch)
		if err := sch.validate.Validate(merged); err != nil {
			return cur, false, Fail("Working memory update does not match the schema; nothing was stored. " + validationDetail(err))
		}
		next, err := encodeJSON(merged)
		if err != nil {
			return cur, false, Fail("Working memory update cannot be encoded: " + err.Error())
		}
		return next, true, stored
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
