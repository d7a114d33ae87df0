package eino

import (
	"context"
	"sync"
)

// pendingSaves tracks the runs of a Memory whose save is still under way
// after their caller stopped reading (a react stream closed early), so that
// the next turn on the thread starts after the previous one is saved.
type pendingSaves struct {
	mu   sync.Mutex
	runs map[pendingThread][]chan struct{}
}

type pendingThread struct{ threadID, resourceID string }

// start registers a run of the thread; call the returned func when its save
// finished or was abandoned.
func (p *pendingSaves) start(threadID, resourceID string) (done func()) {
	k := pendingThread{threadID, resourceID}
	ch := make(chan struct{})
	p.mu.Lock()
	if p.runs == nil {
		p.runs = map[pendingThread][]chan struct{}{}
	}
	p.runs[k] = append(p.runs[k], ch)
	p.mu.Unlock()
	return func() {
		close(ch)
		p.mu.Lock()
		defer p.mu.Unlock()
		l := p.runs[k]
		for i, c := range l {
			if c == ch {
				l = append(l[:i], l[i+1:]...)
				break
			}
		}
		if len(l) == 0 {
			delete(p.runs, k)
		} else {
			p.runs[k] = l
		}
	}
}

// wait blocks until every run of the thread registered so far is done, or
// ctx ends.
func (p *pendingSaves) wait(ctx context.Context, threadID, resourceID string) error {
	p.mu.Lock()
	l := append([]chan struct{}(nil), p.runs[pendingThread{threadID, resourceID}]...)
	p.mu.Unlock()
	for _, ch := range l {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
