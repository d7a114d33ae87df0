package core

import (
	"encoding/json"
	"fmt"
)

// DefaultWorkingMemoryTemplate is the markdown template used when none is given.
const DefaultWorkingMemoryTemplate = `
# About the user
- **Name**: 
- **Location**: 
- **Occupation**: 
- **Preferences**: 
- **Goals**: 
- **Ongoing topics**: 
- **Important facts**: 
`

// WorkingMemoryConfig configures working memory: persistent notes the model
// keeps about a resource (default) or a thread through the updateWorkingMemory tool.
type WorkingMemoryConfig struct {
	Enabled  bool
	Template string          // markdown template; default DefaultWorkingMemoryTemplate
	Schema   json.RawMessage // JSON Schema; switches to JSON mode (merge updates)
	Scope    Scope           // default ScopeResource

	schema *wmSchema // compiled Schema, set by resolve
}

func (w WorkingMemoryConfig) resolve() (WorkingMemoryConfig, error) {
	switch w.Scope {
	case "":
		w.Scope = ScopeResource
	case ScopeThread, ScopeResource:
	default:
		return w, &Error{Code: CodeInvalidConfig, Msg: fmt.Sprintf("workingMemory.scope must be thread or resource, got %q", w.Scope)}
	}
	w.schema = nil
	if len(w.Schema) > 0 {
		var v map[string]any
		if err := json.Unmarshal(w.Schema, &v); err != nil {
			return w, &Error{Code: CodeInvalidConfig, Msg: "workingMemory.schema must be a JSON object", Err: err}
		}
		sch, err := compileWorkingMemorySchema(w.Schema)
		if err != nil {
			return w, &Error{Code: CodeInvalidConfig, Msg: "workingMemory.schema is not a valid JSON Schema", Err: err}
		}
		w.schema = sch
	} else if w.Template == "" {
		w.Template = DefaultWorkingMemoryTemplate
	}
	return w, nil
}

// TitleConfig configures automatic thread titles.
type TitleConfig struct {
	Disabled     bool
	Model        Model  // default Options.Model
	Instructions string // default: built-in title instructions
	MinMessages  int    // default 1
	// OnTitle, when set, receives every generated title (the page's emitEvent).
	OnTitle func(threadID, title string)
	// Background generates the title after Commit returns, so the model call
	// does not delay the turn; Memory.Close waits for it. Default: inside
	// Commit (deterministic).
	Background bool
}
