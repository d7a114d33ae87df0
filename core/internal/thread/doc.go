// Package thread is a thread and its messages. Its Keeper, built over a
// store, saves, updates and deletes messages, creates, updates and deletes
// threads, clones a thread with its lineage recorded in the clone, and
// moves a thread to another resource; it reaches semantic recall and
// observational memory through the small Index and Observer interfaces.
// Rules are what a message or a title must be to be stored, and what makes
// a message storable (ids, creation times); turns use them too. Argument
// checks, per-call configuration and what follows a save are package
// core's.
package thread
