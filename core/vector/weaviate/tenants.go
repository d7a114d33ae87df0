package weaviate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// Tenant states a store sets idle tenants to (TenantIdle.Status).
const (
	// TenantInactive keeps the tenant's files on the node but closes them and
	// frees its memory; the next read or write reactivates it.
	TenantInactive = models.TenantActivityStatusINACTIVE
	// TenantOffloaded moves the tenant to the cloud storage of the server's
	// offload module (offload-s3); the next read or write loads it back.
	TenantOffloaded = models.TenantActivityStatusOFFLOADED
)

// Defaults of TenantIdle.
const (
	DefaultTenantIdleAfter = 15 * time.Minute
	DefaultTenantBatch     = 100
)

// TenantIdle configures how a Store retires tenants nobody uses: a tenant
// costs the server about 11 open files and half a MiB of memory while it is
// active, and nothing but disk once it is inactive.
type TenantIdle struct {
	// After is how long a tenant may go unread and unwritten before the
	// store sets it to Status (default DefaultTenantIdleAfter; negative
	// turns the sweeper off).
	After time.Duration
	// Every is how often the sweeper looks (default After/4, at least 1s).
	Every time.Duration
	// Status is TenantInactive (default) or TenantOffloaded, which needs an
	// offload module configured on the server.
	Status string
	// Batch is the number of tenants per status update request (default
	// DefaultTenantBatch).
	Batch int
}

// withDefaults fills the zero fields of t and checks Status.
func (t TenantIdle) withDefaults() (TenantIdle, error) {
	if t.After == 0 {
		t.After = DefaultTenantIdleAfter
	}
	if t.Every <= 0 {
		t.Every = max(t.After/4, time.Second)
	}
	if t.Status == "" {
		t.Status = TenantInactive
	}
	if t.Status != TenantInactive && t.Status != TenantOffloaded {
		return t, fmt.Errorf("TenantIdle.Status %q: want %q or %q", t.Status, TenantInactive, TenantOffloaded)
	}
	if t.Batch <= 0 {
		t.Batch = DefaultTenantBatch
	}
	return t, nil
}

// SweepResult counts what one pass over idle tenants did.
type SweepResult struct {
	// Checked is the number of active tenants looked at.
	Checked int `json:"checked"`
	// Retired is the number set to the idle status.
	Retired int `json:"retired"`
	// Busy is the number left active because another process uses them:
	// the server holds a write newer than the idle time, or a request was
	// using the tenant.
	Busy int `json:"busy"`
}

// touch records a read or write of a tenant by this process (not kept
// with the sweeper off, where nothing would ever forget it).
func (s *Store) touch(class string, tenants ...string) {
	if s.idle.After < 0 {
		return
	}
	now := time.Now()
	s.mu.Lock()
	for _, t := range tenants {
		s.lastUse[class+"/"+t] = now
	}
	again := s.usedAgain(class, tenants)
	s.mu.Unlock()
	if again > 0 {
		s.metrics.reactivated.Add(context.Background(), int64(again))
	}
}

// ensureLifecycle turns on auto tenant creation and activation on an
// existing class that lacks them, so that writes to new tenants and reads
// and writes of inactive ones work without the caller doing anything.
func (s *Store) ensureLifecycle(ctx context.Context, cls *models.Class) error {
	mt := cls.MultiTenancyConfig
	if mt == nil || !mt.Enabled {
		return fmt.Errorf("class %s has multi-tenancy off", cls.Class)
	}
	if mt.AutoTenantCreation && mt.AutoTenantActivation {
		return nil
	}
	// The class as the server has it now: an update must repeat the
	// properties exactly, including those just added.
	cur, err := s.client.Schema().ClassGetter().WithClassName(cls.Class).Do(ctx)
	if err != nil {
		return err
	}
	cur.MultiTenancyConfig.AutoTenantCreation, cur.MultiTenancyConfig.AutoTenantActivation = true, true
	return s.client.Schema().ClassUpdater().WithClass(cur).Do(ctx)
}

// SweepIdle sets the active tenants of the classes this store ensured or
// used, that neither this process nor any writer used for TenantIdle.After,
// to TenantIdle.Status (the sweeper calls it every TenantIdle.Every). An
// active tenant this process has not used counts from the pass that first
// saw it active. Before retiring a tenant it asks the server for the
// tenant's newest write, so a tenant another process writes to stays
// active; one that another process only reads may be retired, at most once
// per TenantIdle.After, and is reactivated by its next read.
func (s *Store) SweepIdle(ctx context.Context) (SweepResult, error) {
	const op = "SweepIdle"
	idle := s.idle
	if idle.After < 0 {
		return SweepResult{}, nil
	}
	s.mu.Lock()
	var classes []string
	for c := range s.classes {
		classes = append(classes, c)
	}
	s.mu.Unlock()
	slices.Sort(classes)
	var res SweepResult
	var first error
	for _, class := range classes {
		// One class failing (deleted meanwhile, say) does not keep the
		// others' tenants active.
		r, err := s.sweepClass(ctx, class, idle)
		res.Checked, res.Retired, res.Busy = res.Checked+r.Checked, res.Retired+r.Retired, res.Busy+r.Busy
		if err != nil && first == nil {
			first = vector.Fail("weaviate."+op, "class "+class, err)
		}
	}
	return res, first
}

func (s *Store) sweepClass(ctx context.Context, class string, idle TenantIdle) (SweepResult, error) {
	var res SweepResult
	all, err := s.client.Schema().TenantsGetter().WithClassName(class).Do(ctx)
	if err != nil {
		if cls, cerr := s.getClass(ctx, class); cerr == nil && cls == nil {
			s.mu.Lock()
			delete(s.classes, class) // dropped by another process
			s.mu.Unlock()
			return res, nil
		}
		return res, fmt.Errorf("list tenants: %w", err)
	}
	now := time.Now()
	cutoff := now.Add(-idle.After)
	listed := make(map[string]bool, len(all))
	for _, t := range all {
		listed[t.Name] = true
	}
	var candidates []string
	s.mu.Lock()
	for key, at := range s.lastUse {
		if at.Before(cutoff) && strings.HasPrefix(key, class+"/") && !listed[key[len(class)+1:]] {
			delete(s.lastUse, key) // looked up but never created, or deleted
		}
	}
	for _, t := range all {
		key := class + "/" + t.Name
		at, known := s.lastUse[key]
		switch {
		case !active(t.ActivityStatus):
			delete(s.lastUse, key) // retired: the next use records it again
		case !known:
			// Activated by another process (or before this one started):
			// its idle time counts from now.
			s.lastUse[key] = now
		case at.Before(cutoff):
			candidates = append(candidates, t.Name)
		}
	}
	s.mu.Unlock()
	var retire []string
	var lookupErr error
	for _, t := range candidates {
		res.Checked++
		last, err := s.lastWrite(ctx, class, t)
		if err != nil {
			// Deleted meanwhile, or the server is busy: keep it active
			// until a later pass.
			if lookupErr == nil {
				lookupErr = fmt.Errorf("newest write of tenant %s: %w", t, err)
			}
			continue
		}
		if last.After(cutoff) {
			res.Busy++
			s.mu.Lock()
			if at, ok := s.lastUse[class+"/"+t]; ok && at.Before(last) {
				s.lastUse[class+"/"+t] = last
			}
			s.mu.Unlock()
			continue
		}
		retire = append(retire, t)
	}
	n, busy, err := s.setTenantStatus(ctx, class, retire, idle.Status, idle.Batch, cutoff)
	res.Retired, res.Busy = n, res.Busy+busy
	if err == nil {
		err = lookupErr
	}
	return res, err
}

// setTenantStatus sets tenants to status in requests of batch tenants and
// forgets the use of those retired. A tenant used by this process after
// cutoff, or deleted meanwhile, is left out.
func (s *Store) setTenantStatus(ctx context.Context, class string, tenants []string, status string, batch int,
	cutoff time.Time) (done, busy int, err error) {
	for start := 0; start < len(tenants); start += batch {
		var reqs []models.Tenant
		s.mu.Lock()
		for _, t := range tenants[start:min(start+batch, len(tenants))] {
			if at, ok := s.lastUse[class+"/"+t]; !ok || at.Before(cutoff) {
				reqs = append(reqs, models.Tenant{Name: t, ActivityStatus: status})
			}
		}
		s.mu.Unlock()
		if len(reqs) == 0 {
			continue
		}
		set := reqs
		err := s.client.Schema().TenantsUpdater().WithClassName(class).WithTenants(reqs...).Do(ctx)
		if err != nil && skippable(err) {
			set, err = s.setEachStatus(ctx, class, reqs)
		}
		if err != nil {
			return done, busy, fmt.Errorf("set %d tenants %s: %w", len(reqs), status, err)
		}
		busy += len(reqs) - len(set)
		s.mu.Lock()
		for _, t := range set {
			if at, ok := s.lastUse[class+"/"+t.Name]; ok && at.Before(cutoff) {
				delete(s.lastUse, class+"/"+t.Name)
			}
		}
		s.mu.Unlock()
		names := make([]string, len(set))
		for i, t := range set {
			names[i] = t.Name
		}
		s.retiredNow(ctx, class, names)
		done += len(set)
	}
	return done, busy, nil
}

// skippable reports whether a status update failed for a tenant that was
// deleted meanwhile or that a request of another process is using: the
// server refuses to close a shard in use (after trying for 2s), and the
// tenant is not idle anyway.
func skippable(err error) bool {
	return strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "still in use")
}

// setEachStatus updates the tenants one by one, skipping those deleted or
// in use, and returns those it updated.
func (s *Store) setEachStatus(ctx context.Context, class string, reqs []models.Tenant) ([]models.Tenant, error) {
	var set []models.Tenant
	for _, t := range reqs {
		err := s.client.Schema().TenantsUpdater().WithClassName(class).WithTenants(t).Do(ctx)
		switch {
		case err == nil:
			set = append(set, t)
		case !skippable(err):
			return set, err
		}
	}
	return set, nil
}

// lastWrite returns the time of the newest object of an active tenant (the
// zero time when it has none).
func (s *Store) lastWrite(ctx context.Context, class, tenant string) (time.Time, error) {
	resp, err := s.client.GraphQL().Get().WithClassName(class).WithTenant(tenant).WithLimit(1).
		WithConsistencyLevel(s.queryConsistency(class)).WithSort(graphql.Sort{Path: []string{"_lastUpdateTimeUnix"}, Order: graphql.Desc}).
		WithFields(graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "lastUpdateTimeUnix"}}}).Do(ctx)
	if err == nil {
		err = gqlErrors(resp)
	}
	if err != nil {
		return time.Time{}, err
	}
	get, _ := resp.Data["Get"].(map[string]any)
	rows, _ := get[class].([]any)
	if len(rows) == 0 {
		return time.Time{}, nil
	}
	row, _ := rows[0].(map[string]any)
	add, _ := row["_additional"].(map[string]any)
	ms, err := strconv.ParseInt(fmt.Sprint(add["lastUpdateTimeUnix"]), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("lastUpdateTimeUnix %v: %w", add["lastUpdateTimeUnix"], err)
	}
	return time.UnixMilli(ms), nil
}

// RetireIdle sets the active tenants of class (see Classes and ClassName)
// whose newest write is older
// than idle (every active tenant when idle <= 0) to status (TenantInactive
// when empty), in requests of batch tenants (DefaultTenantBatch when <= 0).
// Unlike SweepIdle it needs no history of this process, so a maintenance job
// can run it; a tenant read since its last write may be retired and is
// reactivated by its next read.
func (s *Store) RetireIdle(ctx context.Context, class string, idle time.Duration, status string, batch int) (SweepResult, error) {
	const op = "RetireIdle"
	t, err := TenantIdle{After: max(idle, 1), Status: status, Batch: batch}.withDefaults()
	if err != nil {
		return SweepResult{}, vector.Fail("weaviate."+op, err.Error(), nil)
	}
	if ok, err := s.classExists(ctx, class); err != nil || !ok {
		return SweepResult{}, vector.Fail("weaviate."+op, "class "+class+" does not exist", err)
	}
	all, err := s.client.Schema().TenantsGetter().WithClassName(class).Do(ctx)
	if err != nil {
		return SweepResult{}, vector.Fail("weaviate."+op, "list tenants of "+class, err)
	}
	now := time.Now()
	cutoff := now.Add(-idle)
	var res SweepResult
	var retire []string
	for _, tn := range all {
		if !active(tn.ActivityStatus) {
			continue
		}
		res.Checked++
		if idle > 0 {
			last, err := s.lastWrite(ctx, class, tn.Name)
			if err != nil {
				return res, vector.Fail("weaviate."+op, "newest write of tenant "+tn.Name, err)
			}
			if last.After(cutoff) {
				res.Busy++
				continue
			}
		}
		retire = append(retire, tn.Name)
	}
	// Uses by this process after the listing keep their tenants active
	// (recorded while the sweeper is on).
	n, busy, err := s.setTenantStatus(ctx, class, retire, t.Status, t.Batch, now)
	res.Retired, res.Busy = n, res.Busy+busy
	if err != nil {
		return res, vector.Fail("weaviate."+op, "class "+class, err)
	}
	return res, nil
}

// Classes lists the multi-tenant classes of this store's class prefix on
// the server.
func (s *Store) Classes(ctx context.Context) ([]string, error) {
	sch, err := s.client.Schema().Getter().Do(ctx)
	if err != nil {
		return nil, vector.Fail("weaviate.Classes", "read schema", err)
	}
	var out []string
	for _, c := range sch.Classes {
		if strings.HasPrefix(c.Class, s.cfg.ClassPrefix) && c.MultiTenancyConfig != nil && c.MultiTenancyConfig.Enabled {
			out = append(out, c.Class)
		}
	}
	slices.Sort(out)
	return out, nil
}

// active reports whether a tenant status is the active one (the server
// answers HOT, the older name of ACTIVE).
func active(status string) bool {
	return status == models.TenantActivityStatusHOT || status == models.TenantActivityStatusACTIVE || status == ""
}

// retiring reports whether err comes from a tenant being retired while it
// is used: the server refuses new requests to a shard it is closing, a
// write that reaches the shard as it closes fails on its closed property
// length tracker, and when a request kept the shard open past the status
// update (which gives up after 2s), reactivating the tenant fails until
// that request ends and the old shard closes.
func retiring(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "bucket already registered") || strings.Contains(m, "shard shutdown in progress") ||
		strings.Contains(m, "already shut or dropped") || strings.Contains(m, "cannot flush closed tracker")
}

// retryRetiring runs fn until it succeeds, fails otherwise than by
// retiring, or has tried for 10s: a read or write of a tenant another
// process is retiring waits for it rather than failing.
func retryRetiring(ctx context.Context, fn func() error) error {
	wait := 50 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := fn()
		if !retiring(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
