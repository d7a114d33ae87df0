package workingmem

import "encoding/json"

// ToolName is the name of the tool the model updates working memory with;
// the rendered instructions and the tool's messages name it.
const ToolName = "updateWorkingMemory"

const (
	toolDescriptionMarkdown = "Update the working memory: persistent notes about the user kept across conversations. " +
		"Pass the complete Markdown content as the string argument memory; it replaces the stored notes."
	toolDescriptionJSON = "Update the working memory: persistent notes about the user kept across conversations. " +
		"Pass an object as memory; it is merged into the stored object (objects merge, arrays are replaced, null deletes a field)."
	toolParamsMarkdown = `{"type":"object","properties":{"memory":{"type":"string","description":"The complete working memory as Markdown, following the template. It replaces the stored memory."}},"required":["memory"]}`
)

// ToolDescription describes the update tool: Markdown replace, or JSON merge
// when sch is set.
func ToolDescription(sch *Schema) string {
	if sch != nil {
		return toolDescriptionJSON
	}
	return toolDescriptionMarkdown
}

// ToolParams is the JSON Schema of the update tool's arguments (a copy the
// caller may keep): a Markdown string, or the schema wrapped as memory.
func ToolParams(sch *Schema) json.RawMessage {
	if sch != nil {
		return append(json.RawMessage(nil), sch.params...)
	}
	return json.RawMessage(toolParamsMarkdown)
}
