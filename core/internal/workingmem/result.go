package workingmem

import "encoding/json"

// Result is the JSON result of the updateWorkingMemory tool.
type Result struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

// stored is the result of an update that was written.
var stored = Result{Success: true}

var noData = Result{Success: true, Message: "No memory data provided, existing memory unchanged."}

// Fail is a result that tells the model why nothing was stored.
func Fail(msg string) Result { return Result{Success: false, Message: msg} }

// JSON is the tool result as the model reads it.
func (r Result) JSON() json.RawMessage {
	b, _ := json.Marshal(r)
	return b
}
