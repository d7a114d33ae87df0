// Package memory runs langchaingo v0.1.14's own memory tests against the
// langchaingo adapter. buffer_test.go, chat_test.go, window_buffer_test.go
// and token_buffer_test.go are upstream's files copied byte for byte
// (package memory, as upstream's), except one import line: token_buffer_test.go
// imports the httprr shim in ../httprr instead of langchaingo's internal
// httprr package, which cannot be imported from outside its module.
//
// shims_test.go binds the names the tests use to the adapter: constructors,
// options and types are the adapter's own (aliases and forwarding
// functions), except ConversationWindowBuffer, which is a struct with the
// same fields whose methods forward to the adapter's window buffer, because
// upstream's TestConversationWindowBuffer_cutMessages calls the unexported
// method cutMessages on it. The shim's cutMessages runs the adapter's window
// over the messages (a preloaded history, loaded as messages).
//
// To compare with upstream: go test ./langchaingo/internal/upstream/memory
// here, and the same four files in langchaingo's module.
package memory
