package modeltest

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"time"
)

// A thread as the model knows it: its owner, the metadata the application
// set, and the record of an unfinished move (other keys the memory itself
// writes are not modelled).
type mThread struct {
	id, resource string
	meta         map[string]any
	// moveFrom: MoveThread returned the moved thread with a vector error;
	// its record of the resources it was moved from stays in the thread's
	// metadata until a later MoveThread finishes the move.
	moveFrom []string
}

// A message as the model knows it; sig is its content in short (text, or
// the tool-call parts).
type mMessage struct {
	id, thread, resource, role, sig string
	meta                            map[string]any
	at                              time.Time
}

// tag is the harness id a message's text starts with, which the scripted
// observer names: its own, or its clone source's for a copy (whose id the
// store made).
func (m *mMessage) tag() string {
	if t := tagRE.FindString(m.sig); t != "" {
		return t
	}
	return m.id
}

// model is the reference: what the public API must show after each step.
type model struct {
	threads map[string]*mThread
	msgs    map[string]*mMessage
	wm      map[string]string // "thread:<id>" or "resource:<id>" -> data
}

func newModel() *model {
	return &model{threads: map[string]*mThread{}, msgs: map[string]*mMessage{}, wm: map[string]string{}}
}

// threadMsgs returns a thread's messages, chronological (ties by id).
func (m *model) threadMsgs(thread string) []*mMessage {
	var out []*mMessage
	for _, msg := range m.msgs {
		if msg.thread == thread {
			out = append(out, msg)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].id < out[j].id
	})
	return out
}

func (m *model) resourceThreads(res string) []string {
	var out []string
	for id, th := range m.threads {
		if th.resource == res {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// msgIDs returns the sorted ids of the model's messages.
func (m *model) msgIDs() []string {
	return slices.Sorted(maps.Keys(m.msgs))
}

func (m *model) deleteThread(id string) {
	delete(m.threads, id)
	delete(m.wm, "thread:"+id)
	for mid, msg := range m.msgs {
		if msg.thread == id {
			delete(m.msgs, mid)
		}
	}
}

// moveThread moves a thread and its messages; pending says the move
// failed in its vector steps, so its record stays: the old owner is added
// to the resources of the record, which a finished move removes.
func (m *model) moveThread(id, res string, pending bool) {
	th := m.threads[id]
	if th.resource != res && !slices.Contains(th.moveFrom, th.resource) {
		th.moveFrom = append(th.moveFrom, th.resource)
	}
	if !pending {
		th.moveFrom = nil
	}
	th.resource = res
	for _, msg := range m.msgs {
		if msg.thread == id {
			msg.resource = res
		}
	}
}

// jsonRound returns v as a JSON round trip gives it back (numbers become
// float64), the form every store returns metadata in.
func jsonRound(v map[string]any) map[string]any {
	if len(v) == 0 {
		return map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// mergeMeta shallow-merges up into base; a nil value deletes its key.
func mergeMeta(base, up map[string]any) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range up {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return jsonRound(out)
}

func sameMeta(a, b map[string]any) bool {
	return reflect.DeepEqual(jsonRound(a), jsonRound(b))
}
