package weaviate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentmem/agentmem/core/vector"
	"github.com/agentmem/agentmem/core/vector/analysis"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// uuidNamespace is the UUIDv5 namespace of object ids.
var uuidNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("agentmem:vector-record"))

// ObjectID returns the deterministic object UUID of a record id.
func ObjectID(recordID string) string { return uuid.NewSHA1(uuidNamespace, []byte(recordID)).String() }

// Upsert writes recs with the batch API, replacing objects of the same record
// id within the resource. Objects the server rejects (reported per object)
// make it fail; the others are stored. Self-embedding stores ignore
// VectorRecord.Vector and embed Text.
func (s *Store) Upsert(ctx context.Context, index string, recs []vector.Record) error {
	const op = "Upsert"
	class := s.ClassName(index)
	var tenants, resources, metaNames []string
	seen, written := map[string]bool{}, map[string]int{}
	objs := make([]*models.Object, 0, len(recs))
	for _, r := range recs { // ids, resources and vectors are checked by vector.Checked
		tenant := TenantName(r.Meta.ResourceID)
		written[tenant]++
		if !seen[tenant] {
			seen[tenant] = true
			tenants = append(tenants, tenant)
			resources = append(resources, r.Meta.ResourceID)
		}
		kw := r.Keywords
		if kw == "" {
			kw = analysis.Plain.Analyze(r.Text)
		}
		o := &models.Object{Class: class, ID: strfmt.UUID(ObjectID(r.ID)), Tenant: tenant, Properties: map[string]any{
			propText: r.Text, propKeywords: kw, propRecordID: r.ID, propMessageID: r.Meta.MessageID, propThreadID: r.Meta.ThreadID,
			propResourceID: r.Meta.ResourceID, propRole: string(r.Meta.Role),
			propCreatedAt: r.Meta.CreatedAt.UTC().Format(time.RFC3339Nano),
		}}
		metaNames = append(metaNames, metaObject(o.Properties.(map[string]any), r.Meta.Metadata)...)
		if !s.SelfEmbedding() {
			o.Vector = r.Vector
		}
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return nil
	}
	ok, err := s.classExists(ctx, class)
	if err != nil {
		return vector.Fail("weaviate."+op, "look up index "+index+" (class "+class+")", err)
	}
	if !ok {
		return vector.Fail("weaviate."+op, "index "+index+" (class "+class+") does not exist (call EnsureIndex)", nil)
	}
	if err := s.ensureMetaProps(ctx, class, metaNames); err != nil {
		return vector.Fail("weaviate."+op, "add metadata properties", err)
	}
	if err := s.ensureTenants(ctx, class, tenants); err != nil {
		return vector.Fail("weaviate."+op, "create tenants", err)
	}
	if err := s.markVersions(ctx, op, class, tenants, resources); err != nil {
		return err
	}
	if err := s.putObjects(ctx, objs); err != nil {
		return vector.Fail("weaviate."+op, "batch", err)
	}
	for _, tenant := range tenants {
		s.noteWrites(class, tenant, written[tenant])
	}
	return nil
}

// markVersions checks the version of every tenant a write touches and writes
// the marker of those that have none yet, before any record.
func (s *Store) markVersions(ctx context.Context, op, class string, tenants, resources []string) error {
	var markers []*models.Object
	for i, tenant := range tenants {
		need, err := s.checkVersion(ctx, op, class, tenant, resources[i])
		if err != nil {
			return err
		}
		if need {
			version, _ := s.indexVersion(class)
			markers = append(markers, s.marker(class, tenant, resources[i], version))
		}
	}
	if len(markers) == 0 {
		return nil
	}
	if err := s.putObjects(ctx, markers); err != nil {
		return vector.Fail("weaviate."+op, "index version marker", err)
	}
	version, _ := s.indexVersion(class)
	for _, m := range markers {
		s.setTenantVersion(class, m.Tenant, tenantState{version: version})
	}
	return nil
}

// putObjects writes objs in batches of Config.BatchSize and reads them
// back, writing again those the server acknowledged but does not have.
// Weaviate 1.35.2 releases a shard twice per batch write (fixed upstream in
// weaviate/weaviate#12363), so its count of requests using a shard goes
// negative and a tenant set inactive while a write is under way (by any
// process's sweeper or RetireIdle) closes its shard under the write, which
// then loses objects it reported stored. The read after the write cannot
// see such a loss as success: a shard being closed is no longer served, so
// the read waits for the tenant to load again from disk, where only what
// the closing shard flushed is. The read asks the id filter (an inverted
// index), since the objects found by id alone can lack their index entries.
func (s *Store) putObjects(ctx context.Context, objs []*models.Object) error {
	level := s.consistency(objs[0].Class)
	for attempt := 0; ; attempt++ {
		for start := 0; start < len(objs); start += s.cfg.BatchSize {
			batch := objs[start:min(start+s.cfg.BatchSize, len(objs))]
			err := retryRetiring(ctx, func() error {
				res, err := s.client.Batch().ObjectsBatcher().WithConsistencyLevel(level).WithObjects(batch...).Do(ctx)
				if err != nil {
					return fmt.Errorf("batch of %d objects: %w", len(batch), err)
				}
				return batchErrors(res, len(batch))
			})
			if err != nil {
				return err
			}
		}
		missing, err := s.missingObjects(ctx, objs)
		if err != nil {
			return fmt.Errorf("read back %d objects: %w", len(objs), err)
		}
		if len(missing) == 0 {
			return nil
		}
		if attempt == 2 {
			return fmt.Errorf("%d of %d objects acknowledged but not stored (tenant set inactive while writing), 3 times",
				len(missing), len(objs))
		}
		s.metrics.rewritten.Add(ctx, int64(len(missing)))
		// The object may be stored while its indexes are not: a write of the
		// same object again changes nothing the server can see, so it is
		// deleted first and written anew.
		for _, o := range missing {
			err := retryRetiring(ctx, func() error {
				return s.client.Data().Deleter().WithClassName(o.Class).WithTenant(o.Tenant).WithID(string(o.ID)).
					WithConsistencyLevel(level).Do(ctx)
			})
			var ferr *fault.WeaviateClientError
			if err != nil && !(errors.As(err, &ferr) && ferr.StatusCode == http.StatusNotFound) {
				return fmt.Errorf("delete object %s to write it again: %w", o.ID, err)
			}
		}
		objs = missing
	}
}

// missingObjects returns the objects of objs (of one class) that their
// tenants do not hold.
func (s *Store) missingObjects(ctx context.Context, objs []*models.Object) ([]*models.Object, error) {
	byTenant := map[string][]*models.Object{}
	var order []string
	for _, o := range objs {
		if byTenant[o.Tenant] == nil {
			order = append(order, o.Tenant)
		}
		byTenant[o.Tenant] = append(byTenant[o.Tenant], o)
	}
	var missing []*models.Object
	for _, tenant := range order {
		group := byTenant[tenant]
		for start := 0; start < len(group); start += 1000 {
			part := group[start:min(start+1000, len(group))]
			have, err := s.objectIDs(ctx, part[0].Class, tenant, part)
			if err != nil {
				return nil, err
			}
			for _, o := range part {
				if !have[string(o.ID)] {
					missing = append(missing, o)
				}
			}
		}
	}
	return missing, nil
}

// objectIDs returns which of objs the tenant holds.
func (s *Store) objectIDs(ctx context.Context, class, tenant string, objs []*models.Object) (map[string]bool, error) {
	ids := make([]string, len(objs))
	for i, o := range objs {
		ids[i] = string(o.ID)
	}
	var resp *models.GraphQLResponse
	err := retryRetiring(ctx, func() (err error) {
		resp, err = s.client.GraphQL().Get().WithClassName(class).WithTenant(tenant).WithLimit(len(ids)).
			WithConsistencyLevel(s.queryConsistency(class)).
			WithWhere(filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(ids...)).
			WithFields(graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "id"}}}).Do(ctx)
		if err == nil {
			err = gqlErrors(resp)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	get, _ := resp.Data["Get"].(map[string]any)
	rows, _ := get[class].([]any)
	have := make(map[string]bool, len(rows))
	for _, row := range rows {
		m, _ := row.(map[string]any)
		add, _ := m["_additional"].(map[string]any)
		if id, ok := add["id"].(string); ok {
			have[id] = true
		}
	}
	return have, nil
}

// batchErrors turns the per-object failures of a batch reply into an error.
func batchErrors(res []models.ObjectsGetResponse, n int) error {
	var msgs []string
	failed := 0
	for _, r := range res {
		if r.Result == nil || r.Result.Errors == nil || len(r.Result.Errors.Error) == 0 {
			if r.Result == nil || r.Result.Status == nil || *r.Result.Status != models.ObjectsGetResponseAO2ResultStatusFAILED {
				continue
			}
		}
		failed++
		if len(msgs) < 3 {
			id, _ := r.Properties.(map[string]any)[propRecordID].(string)
			msg := "failed"
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				msg = r.Result.Errors.Error[0].Message
			}
			msgs = append(msgs, fmt.Sprintf("record %q: %s", id, msg))
		}
	}
	if failed == 0 && len(res) == n {
		return nil
	}
	if failed == 0 {
		return fmt.Errorf("server answered %d results for %d objects", len(res), n)
	}
	return fmt.Errorf("%d of %d objects failed: %s", failed, n, strings.Join(msgs, "; "))
}

// Delete removes the records of f.ResourceID (the whole tenant), narrowed to
// f.ThreadID and/or f.MessageIDs when set. Unknown ids, resources and
// indexes are no error.
func (s *Store) Delete(ctx context.Context, index string, f vector.Filter) error {
	const op = "Delete"
	class, tenant := s.ClassName(index), TenantName(f.ResourceID)
	ok, err := s.tenantExists(ctx, class, tenant)
	if err != nil {
		return vector.Fail("weaviate."+op, "tenant lookup", err)
	}
	if !ok {
		return nil
	}
	if f.ThreadID == "" && len(f.MessageIDs) == 0 {
		s.forgetTenant(class, tenant)
		if err := s.client.Schema().TenantsDeleter().WithClassName(class).WithTenants(tenant).Do(ctx); err != nil {
			return vector.Fail("weaviate."+op, "delete tenant", err)
		}
		return nil
	}
	s.forgetSample(class, tenant) // it may hold deleted records
	if len(f.MessageIDs) == 0 {
		return s.batchDelete(ctx, class, tenant, where(f.ResourceID, f.ThreadID, nil))
	}
	for start := 0; start < len(f.MessageIDs); start += 200 {
		ids := f.MessageIDs[start:min(start+200, len(f.MessageIDs))]
		if err := s.batchDelete(ctx, class, tenant, where(f.ResourceID, f.ThreadID, ids)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) batchDelete(ctx context.Context, class, tenant string, w *filters.WhereBuilder) error {
	for range 1000 { // the server deletes at most QUERY_MAXIMUM_RESULTS objects per call
		res, err := s.client.Batch().ObjectsBatchDeleter().WithClassName(class).WithTenant(tenant).
			WithConsistencyLevel(s.consistency(class)).
			WithWhere(w).WithOutput("minimal").Do(ctx)
		if err != nil {
			return vector.Fail("weaviate.Delete", "batch delete", err)
		}
		if res == nil || res.Results == nil {
			return nil
		}
		if res.Results.Failed > 0 {
			msg := fmt.Sprintf("%d of %d objects failed", res.Results.Failed, res.Results.Matches)
			for _, o := range res.Results.Objects {
				if o != nil && o.Errors != nil && len(o.Errors.Error) > 0 {
					msg += ": " + o.Errors.Error[0].Message
					break
				}
			}
			return vector.Fail("weaviate.Delete", "batch delete", fmt.Errorf("%s", msg))
		}
		if res.Results.Matches < res.Results.Limit || res.Results.Successful == 0 {
			return nil
		}
	}
	return nil
}

// where builds resourceId == r [AND threadId == t] [AND messageId in ids].
func where(resource, thread string, ids []string) *filters.WhereBuilder {
	ops := []*filters.WhereBuilder{
		filters.Where().WithPath([]string{propResourceID}).WithOperator(filters.Equal).WithValueText(resource),
	}
	if thread != "" {
		ops = append(ops, filters.Where().WithPath([]string{propThreadID}).WithOperator(filters.Equal).WithValueText(thread))
	}
	if len(ids) > 0 {
		ops = append(ops, filters.Where().WithPath([]string{propMessageID}).WithOperator(filters.ContainsAny).WithValueText(ids...))
	}
	if len(ops) == 1 {
		return ops[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}
