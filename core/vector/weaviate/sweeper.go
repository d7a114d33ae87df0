package weaviate

import (
	"context"
	"time"
)

// sweeper runs SweepIdle every TenantIdle.Every until Close.
func (s *Store) sweeper(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(s.idle.Every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// A failed pass (server down, tenant deleted meanwhile) leaves the
			// tenants active; the next pass tries again.
			res, err := s.SweepIdle(ctx)
			s.mu.Lock()
			s.lastSweep, s.lastSweepErr = res, err
			s.mu.Unlock()
		}
	}
}

// LastSweep returns the result of the sweeper's latest pass.
func (s *Store) LastSweep() (SweepResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSweep, s.lastSweepErr
}

// Close stops the idle-tenant sweeper, waiting for a pass under way.
// Tenants stay as they are on the server.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.stopSweeper != nil {
			s.stopSweeper()
			<-s.sweeperDone
		}
	})
	return nil
}
