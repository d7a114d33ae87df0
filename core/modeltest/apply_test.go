package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/store"
)

// apply runs operation o (step i) against the Memory and the model; it
// returns a violation: an outcome the model does not allow.
func (r *runner) apply(i int, o op) error {
	r.step = i
	f, ok := applyFuncs[o.Kind]
	if !ok {
		return fmt.Errorf("unknown operation %q", o.Kind)
	}
	return f(r, o)
}

var applyFuncs map[string]func(*runner, op) error

func init() {
	applyFuncs = map[string]func(*runner, op) error{
		"create": (*runner).create, "updateThread": (*runner).updateThread, "deleteThread": (*runner).deleteThread,
		"clone": (*runner).clone, "move": (*runner).move,
		"save": (*runner).save, "resave": (*runner).resave, "updateMessage": (*runner).updateMessage,
		"deleteMessage": (*runner).deleteMessage, "bigMessage": (*runner).bigMessage, "tooLarge": (*runner).tooLarge, "endedContext": (*runner).endedContext,
		"turn": (*runner).turn, "abandonedLoop": (*runner).abandonedLoop,
		"recall": (*runner).recall, "recallVector": (*runner).recallVector, "recallTool": (*runner).recallTool,
		"workingMemory": (*runner).workingMemory, "observe": (*runner).observe, "reflect": (*runner).observe,
		"clearObservations": (*runner).observe, "reindex": (*runner).reindex,
		"embedderDown": func(r *runner, _ op) error { r.emb.down.Store(true); return nil },
		"embedderUp":   func(r *runner, _ op) error { r.emb.down.Store(false); return nil },
		"reopen":       func(r *runner, _ op) error { return r.reopen() },
	}
}

// threadMeta is the application metadata of a thread operation; the key
// "move" is the application's too (MoveThread's record is under its own).
func (r *runner) threadMeta(o op) map[string]any {
	md := map[string]any{"kind": []string{"chat", "task", "ünï"}[o.N%3], "n": float64(o.N % 5)}
	if o.N%4 == 1 {
		md["kind"] = nil
	}
	if o.N%5 == 2 {
		md["move"] = "the application's own value"
	}
	return md
}

func (r *runner) create(o op) error {
	id, res := threadID(o.Thread), resourceID(o.Res)
	md := r.threadMeta(o)
	_, err := r.mem.CreateThread(r.ctx, core.ThreadInput{ID: id, ResourceID: res, Metadata: md})
	if th, ok := r.mod.threads[id]; ok && th.resource != res {
		return expectCode("CreateThread of another resource's thread", err, memerr.CodeResourceMismatch, memerr.CodeThreadExists)
	}
	if err != nil {
		return fmt.Errorf("CreateThread: %v", err)
	}
	// Created or replaced: the metadata is the one given, explicit nulls kept.
	r.mod.threads[id] = &mThread{id: id, resource: res, meta: jsonRound(md)}
	return nil
}

func (r *runner) updateThread(o op) error {
	id := threadID(o.Thread)
	md := r.threadMeta(o)
	_, err := r.mem.UpdateThread(r.ctx, id, core.ThreadUpdate{Metadata: md})
	th, ok := r.mod.threads[id]
	if !ok {
		return expectCode("UpdateThread of a missing thread", err, memerr.CodeThreadNotFound)
	}
	if err != nil {
		return fmt.Errorf("UpdateThread: %v", err)
	}
	th.meta = mergeMeta(th.meta, md)
	return nil
}

func (r *runner) deleteThread(o op) error {
	id := threadID(o.Thread)
	err := r.mem.DeleteThread(r.ctx, id)
	if _, ok := r.mod.threads[id]; !ok {
		if err != nil {
			return expectCode("DeleteThread of a missing thread", err, memerr.CodeThreadNotFound)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("DeleteThread: %v", err)
	}
	r.mod.deleteThread(id)
	return nil
}

func (r *runner) clone(o op) error {
	src, dst, res := threadID(o.Thread), threadID(o.Other), resourceID(o.Res)
	th, _, err := r.mem.CloneThread(r.ctx, core.CloneOptions{SourceThreadID: src, NewThreadID: dst, ResourceID: res})
	s, ok := r.mod.threads[src]
	if !ok {
		return expectCode("CloneThread of a missing thread", err, memerr.CodeThreadNotFound)
	}
	if _, taken := r.mod.threads[dst]; taken {
		return expectCode("CloneThread onto an existing thread", err, memerr.CodeThreadExists, memerr.CodeInvalidArgument)
	}
	if err != nil {
		return fmt.Errorf("CloneThread: %v", err)
	}
	if th.ID != dst || th.ResourceID != res {
		return fmt.Errorf("CloneThread returned thread %s of %s", th.ID, th.ResourceID)
	}
	r.mod.threads[dst] = &mThread{id: dst, resource: res, meta: maps.Clone(s.meta)}
	// The copies have new ids: read them back and match them to the source's
	// messages by content and time.
	got, err := r.mem.Recall(r.ctx, allOf(dst, res))
	if err != nil {
		return fmt.Errorf("Recall of the clone: %v", err)
	}
	want := r.mod.threadMsgs(src)
	if len(got.Messages) != len(want) {
		return fmt.Errorf("clone has %d messages, its source %d", len(got.Messages), len(want))
	}
	for k, m := range got.Messages {
		if sigOf(m) != want[k].sig || !sameMeta(m.Content.Metadata, want[k].meta) || r.mod.msgs[m.ID] != nil {
			return fmt.Errorf("clone message %s (%q) is no new copy of %s (%q)", m.ID, sigOf(m), want[k].id, want[k].sig)
		}
	}
	r.adopt(got.Messages)
	if wm, ok := r.mod.wm["thread:"+src]; ok {
		r.mod.wm["thread:"+dst] = wm
	}
	if wm, ok := r.mod.wm["resource:"+s.resource]; ok && res != s.resource {
		if _, own := r.mod.wm["resource:"+res]; !own {
			r.mod.wm["resource:"+res] = wm
		}
	}
	return nil
}

func (r *runner) move(o op) error {
	id, res := threadID(o.Thread), resourceID(o.Res)
	r.countMove(id, res)
	th, err := r.mem.MoveThread(r.ctx, id, res)
	if _, ok := r.mod.threads[id]; !ok {
		return expectCode("MoveThread of a missing thread", err, memerr.CodeThreadNotFound)
	}
	pending := err != nil && r.emb.down.Load() && th.ResourceID == res
	if err != nil && !pending {
		return fmt.Errorf("MoveThread: %v", err)
	}
	r.mod.moveThread(id, res, pending)
	return nil
}

// countMove tallies a move of a thread with messages to another resource
// under resource-scoped observational memory.
func (r *runner) countMove(id, res string) {
	th := r.mod.threads[id]
	if r.tally == nil || !r.set.om || r.set.omScope != core.ScopeResource || th == nil || th.resource == res {
		return
	}
	msgs := r.mod.threadMsgs(id)
	if len(msgs) == 0 {
		return
	}
	r.tally.omMoves++
	if rec, err := r.mem.Observations(r.ctx, id, res, nil); err == nil && msgs[0].at.Before(rec.LastObservedAt) {
		r.tally.olderMoves++
	}
}

// target resolves the thread and resource of a write: the model's owner,
// or another resource when the operation's flag asks for a mismatch.
func (r *runner) target(o op) (thread, res string, exists, wrong bool) {
	thread = threadID(o.Thread)
	th, exists := r.mod.threads[thread]
	if !exists {
		return thread, resourceID(o.Res), false, false
	}
	if o.Flag {
		return thread, resourceID(indexOf(th.resource) + 1 + o.Res%2), true, true
	}
	return thread, th.resource, true, false
}

// indexOf is the universe index of a thread or resource id ("t3", "r1").
func indexOf(id string) int {
	n, _ := strconv.Atoi(id[1:])
	return n
}

// saveChecked saves msgs and updates the model by the rules of SaveMessages.
func (r *runner) saveChecked(o op, msgs []core.Message) error {
	_, res, exists, wrong := r.target(o)
	saved, err := r.mem.SaveMessages(r.ctx, msgs, nil)
	switch {
	case !exists:
		return expectCode("SaveMessages to a missing thread", err, memerr.CodeThreadNotFound)
	case wrong:
		return expectCode("SaveMessages under another resource", err, memerr.CodeResourceMismatch)
	case err != nil && typedRefusal(err):
		return nil
	case err != nil:
		return fmt.Errorf("SaveMessages: %v", err)
	}
	for k := range saved {
		if saved[k].ResourceID != res {
			return fmt.Errorf("saved %s under %s, want %s", saved[k].ID, saved[k].ResourceID, res)
		}
	}
	r.adopt(saved)
	return nil
}

func (r *runner) save(o op) error {
	thread, res, _, _ := r.target(o)
	var msgs []core.Message
	for j := range 1 + o.N%3 {
		id := fmt.Sprintf("m%d_%d", r.step, j)
		msgs = append(msgs, r.userMsg(id, thread, res, saidText(o.N+j), metaVariant(o.N+j), j))
	}
	return r.saveChecked(o, msgs)
}

// resave saves an existing message again under its id with new text and
// metadata: an upsert.
func (r *runner) resave(o op) error {
	ids := r.mod.msgIDs()
	if len(ids) == 0 {
		return nil
	}
	old := r.mod.msgs[ids[o.N%len(ids)]]
	if !strings.HasPrefix(old.sig, "text:") {
		return nil
	}
	o.Thread, o.Flag = indexOf(old.thread), false
	msg := r.userMsg(old.id, old.thread, old.resource, phrase(o.N)+" (again)", metaVariant(o.N), 0)
	msg.Role, msg.CreatedAt = core.Role(old.role), old.at
	msg.Content.Parts = []core.Part{core.TextPart(old.tag() + " " + saidText(o.N) + " (again)")}
	return r.saveChecked(o, []core.Message{msg})
}

func (r *runner) updateMessage(o op) error {
	ids := r.mod.msgIDs()
	id := fmt.Sprintf("m%d_missing", r.step)
	if len(ids) > 0 && o.N%8 != 0 {
		id = ids[o.N%len(ids)]
	}
	up := core.MessageUpdate{ID: id, Content: &core.ContentUpdate{Metadata: metaVariant(o.N + 1)}}
	old, known := r.mod.msgs[id]
	textual := known && strings.HasPrefix(old.sig, "text:")
	if o.Flag && textual {
		up.Content.Parts = []core.Part{core.TextPart(old.tag() + " edited " + saidText(o.N))}
	}
	_, err := r.mem.UpdateMessages(r.ctx, []core.MessageUpdate{up})
	if err != nil {
		if typedRefusal(err) {
			return nil
		}
		return fmt.Errorf("UpdateMessages: %v", err)
	}
	if !known {
		return nil
	}
	old.meta = mergeMeta(old.meta, up.Content.Metadata)
	if up.Content.Parts != nil {
		old.sig = sigOf(core.Message{Content: core.Content{Parts: up.Content.Parts}})
	}
	return nil
}

func (r *runner) deleteMessage(o op) error {
	ids := r.mod.msgIDs()
	if len(ids) == 0 {
		return nil
	}
	id := ids[o.N%len(ids)]
	if err := r.mem.DeleteMessages(r.ctx, []string{id}); err != nil {
		return fmt.Errorf("DeleteMessages: %v", err)
	}
	delete(r.mod.msgs, id)
	return nil
}

// bigMessage saves a text over 1 MiB: it must be stored and indexed.
func (r *runner) bigMessage(o op) error {
	thread, res, _, _ := r.target(o)
	txt := strings.Repeat(phrase(o.N)+" ", (1<<20)/30+100)
	return r.saveChecked(o, []core.Message{r.userMsg(fmt.Sprintf("m%d_big", r.step), thread, res, txt, nil, 0)})
}

// tooLarge saves a message over the size limit as stored (the content's
// JSON, each text once, "<" escaped to six bytes), though its text alone is
// under it: refused, naming the message and its size as stored.
func (r *runner) tooLarge(o op) error {
	thread, res, exists, wrong := r.target(o)
	if !exists || wrong {
		return nil
	}
	id := fmt.Sprintf("m%d_huge", r.step)
	msg := r.userMsg(id, thread, res, strings.Repeat("x<", core.DefaultMaxMessageBytes/4+o.N), nil, 0)
	_, err := r.mem.SaveMessages(r.ctx, []core.Message{msg}, nil)
	if v := expectCode("SaveMessages over the size limit", err, memerr.CodeMessageTooLarge); v != nil {
		return v
	}
	stored, merr := message.MarshalStored(msg.Content)
	if merr != nil {
		return fmt.Errorf("encoding %s: %v", id, merr)
	}
	if size := digitGroups(len(stored)); !strings.Contains(err.Error(), strconv.Quote(id)) || !strings.Contains(err.Error(), size+" bytes") {
		return fmt.Errorf("size error names neither the message %s nor its %s bytes as stored: %v", id, size, err)
	}
	return nil
}

// endedContext saves through a context that has already ended: the save
// fails as canceled, whatever else is wrong with it, and the invariants after
// the step check that it changed nothing (the model is not touched).
func (r *runner) endedContext(o op) error {
	thread, res, _, _ := r.target(o)
	msg := r.userMsg(fmt.Sprintf("m%d_ended", r.step), thread, res, phrase(o.N), nil, 0)
	ctx, cancel := context.WithCancel(r.ctx)
	cancel()
	_, err := r.mem.SaveMessages(ctx, []core.Message{msg}, nil)
	if v := expectCode("SaveMessages with an ended context", err, memerr.CodeCanceled); v != nil {
		return v
	}
	if !errors.Is(err, context.Canceled) {
		return fmt.Errorf("SaveMessages with an ended context: %v does not wrap context.Canceled", err)
	}
	return nil
}

// digitGroups writes n with its digits in groups of three, as size errors do.
func digitGroups(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (r *runner) workingMemory(o op) error {
	thread, res, exists, wrong := r.target(o)
	data := fmt.Sprintf("# notes %d\n- %s", r.step, phrase(o.N))
	err := r.mem.UpdateWorkingMemory(r.ctx, thread, res, data, nil)
	key := "resource:" + res
	if r.set.wmScope == core.ScopeThread {
		key = "thread:" + thread
	}
	switch {
	case wrong && r.set.wmScope == core.ScopeThread:
		return expectCode("UpdateWorkingMemory under another resource", err, memerr.CodeResourceMismatch)
	case !exists && r.set.wmScope == core.ScopeThread:
		return expectCode("UpdateWorkingMemory of a missing thread", err, memerr.CodeThreadNotFound)
	case err != nil:
		return fmt.Errorf("UpdateWorkingMemory: %v", err)
	}
	r.mod.wm[key] = data
	return nil
}

// observe runs ObserveNow, ReflectNow or ClearObservations; without
// observational memory they must refuse with a typed error.
func (r *runner) observe(o op) error {
	thread, res, exists, wrong := r.target(o)
	call := map[string]func() (store.ObservationRecord, error){
		"observe":           func() (store.ObservationRecord, error) { return r.mem.ObserveNow(r.ctx, thread, res, nil) },
		"reflect":           func() (store.ObservationRecord, error) { return r.mem.ReflectNow(r.ctx, thread, res, nil) },
		"clearObservations": func() (store.ObservationRecord, error) { return r.mem.ClearObservations(r.ctx, thread, res, nil) },
	}[o.Kind]
	_, err := call()
	switch {
	case !r.set.om:
		if err == nil {
			return nil
		}
		return expectCode(o.Kind+" without observational memory", err, memerr.CodeInvalidConfig, memerr.CodeThreadNotFound, memerr.CodeResourceMismatch)
	case !exists:
		return expectCode(o.Kind+" of a missing thread", err, memerr.CodeThreadNotFound)
	case wrong:
		return expectCode(o.Kind+" under another resource", err, memerr.CodeResourceMismatch)
	case err != nil:
		return fmt.Errorf("%s: %v", o.Kind, err)
	}
	return nil
}

// toolCall is a tool call part's message, and its result's.
func toolPair(id string, n int) (call, result core.Message) {
	args, _ := json.Marshal(map[string]any{"q": phrase(n)})
	res, _ := json.Marshal(strings.Repeat(phrase(n)+". ", 8))
	call = core.Message{ID: id + "c", Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{
		Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: "call", ToolCallID: id, ToolName: "lookup", Args: args}}}}}
	result = core.Message{ID: id + "r", Role: core.RoleAssistant, Content: core.Content{Format: 2, Parts: []core.Part{{
		Type: core.PartToolInvocation, ToolInvocation: &message.ToolInvocation{State: "result", ToolCallID: id, ToolName: "lookup", Args: args, Result: res}}}}}
	return call, result
}
