// Package observe is observational memory. Its Observer, built over a
// store, a tokenizer and the models of the configuration, shows a record's
// observations to a turn (Load), runs the observation and reflection cycles
// after a save, at once, buffered or in the background (AfterSave), and
// observes, reflects or clears on request; it owns the in-process locks and
// background jobs of the records. The rest of the package are its
// mechanisms: the observer's and reflector's prompts, the system messages
// that show the observations, batching of unobserved messages, appending a
// batch's observations to a record, buffering thresholds and activation,
// and continuation hints.
package observe
