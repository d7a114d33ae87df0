package workingmem

import (
	"encoding/json"
	"strings"
)

// Update reasons of the search-and-replace tool (Mastra's vnext
// updateWorkingMemory).
const (
	ReasonAppend  = "append-new-memory"
	ReasonClarify = "clarify-existing-memory"
	ReasonReplace = "replace-irrelevant-memory"
)

const (
	toolDescriptionEdit = "Update the working memory: persistent notes about the user kept across conversations. " +
		"Pass newMemory to append it; to change a line, pass the exact text to change as searchString and its replacement as newMemory."
	toolParamsEdit = `{"type":"object","properties":{` +
		`"newMemory":{"type":"string","description":"The Markdown formatted working memory content to store."},` +
		`"searchString":{"type":"string","description":"The working memory text to find; it is replaced with newMemory. If omitted or not found, newMemory is appended to the end of the working memory. Replacing single lines at a time is more accurate. Required unless updateReason is append-new-memory."},` +
		`"updateReason":{"type":"string","enum":["append-new-memory","clarify-existing-memory","replace-irrelevant-memory"],"description":"Why the working memory changes; default append-new-memory. Any other value requires searchString."}}}`
)

// EditToolDescription describes the search-and-replace tool.
func EditToolDescription() string { return toolDescriptionEdit }

// EditToolParams is the JSON Schema of the search-and-replace tool's
// arguments (a copy the caller may keep).
func EditToolParams() json.RawMessage { return json.RawMessage(toolParamsEdit) }

// editArgs are the search-and-replace tool's arguments.
type editArgs struct {
	NewMemory    *string `json:"newMemory"`
	SearchString *string `json:"searchString"`
	UpdateReason *string `json:"updateReason"`
}

// ParseEdit turns the search-and-replace tool's arguments into an update
// (Mastra's vnext working memory, Markdown only): newMemory replaces the
// first occurrence of searchString, or is appended on a new line when
// searchString is absent or not found. The update reason defaults to
// append-new-memory, which ignores searchString; any other reason needs
// one; an empty newMemory with a searchString deletes that text. In resource
// scope a replacement for irrelevance is refused: what is irrelevant to this
// conversation may matter to another. A nil Update
// means nothing is to be stored; res then tells the model why.
func ParseEdit(template string, resourceScope bool, args json.RawMessage) (Update, Result) {
	var a editArgs
	raw := strings.TrimSpace(string(args))
	if raw == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return nil, Fail(`Invalid arguments for ` + ToolName + `: ` + err.Error() +
			`. Expected {"newMemory": "<markdown>", "searchString": "<text>", "updateReason": "` + ReasonAppend + `"}.`)
	}
	reason := ReasonAppend
	if a.UpdateReason != nil && *a.UpdateReason != "" {
		reason = *a.UpdateReason
	}
	switch reason {
	case ReasonAppend, ReasonClarify, ReasonReplace:
	default:
		return nil, Fail("updateReason must be one of " + ReasonAppend + ", " + ReasonClarify + ", " + ReasonReplace + "; nothing was stored.")
	}
	data, search := "", ""
	if a.NewMemory != nil {
		data = *a.NewMemory
	}
	if a.SearchString != nil {
		search = *a.SearchString
	}
	if resourceScope && reason == ReasonReplace {
		return nil, Fail("This working memory is shared by every conversation of the user: what is irrelevant here may matter in another, " +
			"so " + ReasonReplace + " is refused. Use " + ReasonClarify + " to correct a line or " + ReasonAppend + " to add one. Nothing was stored.")
	}
	if reason == ReasonAppend {
		search = "" // models pass one by mistake when appending
	}
	if reason != ReasonAppend && search == "" {
		return nil, Fail("updateReason was " + reason + " but no searchString was provided. Unable to replace undefined with \"" +
			truncate(data, maxEchoedInput) + "\"")
	}
	if search == "" && strings.TrimSpace(data) == "" {
		return nil, noData
	}
	return editUpdate(template, data, search), stored
}

// editUpdate applies one search-and-replace or append to the stored
// Markdown. Duplicates and bare templates are refused, and copies of the
// template inside the result are removed (models often resend it).
func editUpdate(template, data, search string) Update {
	tpl := strings.Trim(template, "\r\n")
	ntpl := normalizeSpace(template)
	return func(cur string) (string, bool, Result) {
		next, msg := "", ""
		switch {
		case cur != "" && search != "" && strings.Contains(cur, search):
			next, msg = strings.Replace(cur, search, data, 1), "found and replaced searchString with newMemory"
		case cur != "" && (strings.Contains(cur, data) || normalizeSpace(data) == ntpl):
			return cur, false, Fail("attempted to insert duplicate data into working memory. this entry was skipped")
		case cur != "":
			msg = "appended newMemory to end of working memory"
			if search != "" {
				msg = "attempted to replace working memory string that doesn't exist. Appending to working memory instead."
			}
			next = cur + "\n" + data
		case normalizeSpace(data) == ntpl:
			return cur, false, Fail("try again when you have data to add. newMemory was equal to the working memory template")
		default:
			next, msg = data, "started new working memory"
		}
		if tpl != "" {
			for _, t := range []string{template, tpl, strings.ReplaceAll(tpl, "\r\n", "\n"), strings.ReplaceAll(strings.ReplaceAll(tpl, "\r\n", "\n"), "\n", "\r\n")} {
				if strings.TrimSpace(t) != "" {
					next = strings.ReplaceAll(next, t, "")
				}
			}
		}
		return next, true, Result{Success: true, Message: msg}
	}
}
