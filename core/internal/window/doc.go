// Package window holds the mechanisms that shape the message window of a
// prompt: chronological merges, the count and token trims of history, the
// order in which remembered messages give way to the budget, the pairing of
// tool calls with their results, the completion of bare tool results, and
// what of a message is persisted. Its functions are pure: they take messages and return messages, and never
// touch storage.
package window
