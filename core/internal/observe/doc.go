// Package observe holds the mechanisms of observational memory: the
// observer's and reflector's prompts, the system messages that show the
// observations to a turn, batching of unobserved messages, appending a
// batch's observations to a record, and the in-process locks and background
// workers that run one cycle per record at a time. The cycle itself (reading
// the store, calling the models, compare-and-set writes) is core's.
package observe
