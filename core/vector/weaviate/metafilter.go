package weaviate

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"time"

	"github.com/agentmem/agentmem/core/memerr"
	"github.com/agentmem/agentmem/core/message"
	"github.com/agentmem/agentmem/core/vector"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// A record's message metadata is stored twice: whole, as JSON in
// propMetaJSON (returned with hits), and flattened for filtering. Every key
// path ("a", "a.b" for nested objects) is listed in propMetaKeys and, when
// its value is null, in propMetaNulls; a string, number or boolean value is
// a property of its own, named by kind and the path in hex (property names
// are case-insensitive in Weaviate, metadata keys are not), added to the
// class the first time a record carries it. A string message.ParseFilterTime
// reads is also a number property of its message.FilterMillis, which the
// range operators compare: Weaviate's date properties keep Unix nanoseconds
// in an int64, which cannot hold the years before 1678 or after 2261.
const (
	propMetaJSON  = "metaJson"
	propMetaKeys  = "metaKeys"
	propMetaNulls = "metaNulls"
)

// Kinds of flattened metadata properties.
const (
	metaText   = "metas_"
	metaNumber = "metan_"
	metaBool   = "metab_"
	metaMillis = "metam_"
)

// maxMetaPath is the longest key path that is flattened: its property name
// must stay within Weaviate's 231 characters.
const maxMetaPath = 110

// neverKey is in no record's propMetaKeys (keys are identifiers), so
// ContainsAny on it is false for every record.
const neverKey = "$none"

func metaProp(kind, path string) string { return kind + hex.EncodeToString([]byte(path)) }

var metaDataTypes = map[string]string{metaText: "text", metaNumber: "number", metaBool: "boolean", metaMillis: "number"}

// metaProperties are the fixed metadata properties (see addedProperties).
func (s *Store) metaProperties() []*models.Property {
	f, t := false, true
	return []*models.Property{
		{Name: propMetaJSON, DataType: []string{"text"}, Tokenization: "field", IndexSearchable: &f, IndexFilterable: &f,
			ModuleConfig: s.skipVectorization()},
		{Name: propMetaKeys, DataType: []string{"text[]"}, Tokenization: "field", IndexSearchable: &f, IndexFilterable: &t,
			ModuleConfig: s.skipVectorization()},
		{Name: propMetaNulls, DataType: []string{"text[]"}, Tokenization: "field", IndexSearchable: &f, IndexFilterable: &t,
			ModuleConfig: s.skipVectorization()},
	}
}

// metaObject adds md's properties to props and returns the names of the
// flattened ones, which the class must have before the write.
func metaObject(props map[string]any, md map[string]any) []string {
	keys, nulls := []string{}, []string{}
	props[propMetaKeys], props[propMetaNulls], props[propMetaJSON] = keys, nulls, ""
	if len(md) == 0 {
		return nil
	}
	b, err := json.Marshal(md)
	if err != nil {
		return nil // metadata a message could not store is not filterable
	}
	var norm map[string]any // as a JSON round trip leaves it, as SQL stores read it
	if json.Unmarshal(b, &norm) != nil {
		return nil
	}
	props[propMetaJSON] = string(b)
	var names []string
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			path := prefix + k
			if len(path) > maxMetaPath || depth > message.MaxFilterDepth {
				continue
			}
			keys = append(keys, path)
			set := func(kind string, val any) {
				name := metaProp(kind, path)
				props[name] = val
				names = append(names, name)
			}
			switch x := v.(type) {
			case nil:
				nulls = append(nulls, path)
			case string:
				set(metaText, x)
				if t, ok := message.ParseFilterTime(x); ok {
					set(metaMillis, float64(message.FilterMillis(t)))
				}
			case float64:
				set(metaNumber, x)
			case bool:
				set(metaBool, x)
			case map[string]any:
				walk(path+".", x, depth+1)
			}
		}
	}
	walk("", norm, 0)
	props[propMetaKeys], props[propMetaNulls] = keys, nulls
	return names
}

// classProps returns the property names of class, from the cache unless
// refresh (or nothing is cached).
func (s *Store) classProps(ctx context.Context, class string, refresh bool) (map[string]bool, error) {
	s.mu.Lock()
	have := s.props[class]
	s.mu.Unlock()
	if have != nil && !refresh {
		return have, nil
	}
	cls, err := s.client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		return nil, err
	}
	have = map[string]bool{}
	for _, p := range cls.Properties {
		have[p.Name] = true
	}
	s.mu.Lock()
	if s.props == nil {
		s.props = map[string]map[string]bool{}
	}
	s.props[class] = have
	s.mu.Unlock()
	return have, nil
}

// ensureMetaProps adds the flattened metadata properties names that class
// lacks (another process may add one meanwhile: that is no error).
func (s *Store) ensureMetaProps(ctx context.Context, class string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	have, err := s.classProps(ctx, class, false)
	if err != nil {
		return err
	}
	missing := map[string]bool{}
	for _, n := range names {
		if !have[n] {
			missing[n] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if have, err = s.classProps(ctx, class, true); err != nil {
		return err
	}
	f, t := false, true
	for n := range missing {
		if have[n] {
			continue
		}
		p := &models.Property{Name: n, DataType: []string{metaDataTypes[n[:len(metaText)]]}, IndexSearchable: &f,
			IndexFilterable: &t, ModuleConfig: s.skipVectorization()}
		if p.DataType[0] == "text" {
			p.Tokenization = "field"
		}
		if err := s.client.Schema().PropertyCreator().WithClassName(class).WithProperty(p).Do(ctx); err != nil {
			if now, gerr := s.classProps(ctx, class, true); gerr != nil || !now[n] {
				return err
			}
		}
	}
	_, err = s.classProps(ctx, class, true)
	return err
}

// metaWhere translates f into a Weaviate where filter on the properties
// metaObject writes. A leaf on a property the class lacks (no record ever
// held such a value), or that absent names (no record of the tenant holds
// one: unbucketed), matches nothing. Strings the GraphQL client cannot
// quote are ErrUnsupported.
func (s *Store) metaWhere(ctx context.Context, class string, f message.Filter, absent map[string]bool) (*filters.WhereBuilder, error) {
	have, err := s.classProps(ctx, class, false)
	if err != nil {
		return nil, vector.Fail("weaviate.Query", "schema of class "+class, err)
	}
	refreshed := false
	prop := func(kind, path string) (string, error) {
		name := metaProp(kind, path)
		if !have[name] && !refreshed {
			refreshed = true
			if have, err = s.classProps(ctx, class, true); err != nil {
				return "", vector.Fail("weaviate.Query", "schema of class "+class, err)
			}
		}
		if !have[name] || absent[name] {
			return "", nil
		}
		return name, nil
	}
	return s.metaLeaf(f, prop)
}

// unbucketedRE finds the property a shard has no index bucket for: one no
// record of the tenant has held a value of, though another tenant's record
// added it to the class (a shard creates a property's bucket with its
// first value).
var unbucketedRE = regexp.MustCompile(`bucket for prop (\S+) not found`)

// unbucketed returns the property err names as having no bucket, or "".
func unbucketed(err error) string {
	if err == nil {
		return ""
	}
	if m := unbucketedRE.FindStringSubmatch(err.Error()); m != nil {
		return m[1]
	}
	return ""
}

func never() *filters.WhereBuilder {
	return filters.Where().WithPath([]string{propMetaKeys}).WithOperator(filters.ContainsAny).WithValueText(neverKey)
}

func not(w *filters.WhereBuilder) *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.Not).WithOperands([]*filters.WhereBuilder{w})
}

func (s *Store) metaLeaf(f message.Filter, prop func(kind, path string) (string, error)) (*filters.WhereBuilder, error) {
	switch f.Op {
	case message.OpAnd, message.OpOr:
		ops := make([]*filters.WhereBuilder, len(f.All))
		for i, sub := range f.All {
			w, err := s.metaLeaf(sub, prop)
			if err != nil {
				return nil, err
			}
			ops[i] = w
		}
		op := filters.And
		if f.Op == message.OpOr {
			op = filters.Or
		}
		return filters.Where().WithOperator(op).WithOperands(ops), nil
	}
	if len(f.Key) > maxMetaPath {
		return nil, memerr.Errorf(memerr.CodeUnsupported, "Query", "metadata filter: Weaviate filters key paths of up to %d bytes", maxMetaPath)
	}
	eq := func(v any) (*filters.WhereBuilder, error) {
		var kind string
		switch v.(type) {
		case nil:
			return filters.Where().WithPath([]string{propMetaNulls}).WithOperator(filters.ContainsAny).WithValueText(f.Key), nil
		case string:
			kind = metaText
		case float64:
			kind = metaNumber
		case bool:
			kind = metaBool
		}
		name, err := prop(kind, f.Key)
		if err != nil || name == "" {
			return never(), err
		}
		w := filters.Where().WithPath([]string{name}).WithOperator(filters.Equal)
		switch x := v.(type) {
		case string:
			if !gqlSafe(x) {
				return nil, memerr.Errorf(memerr.CodeUnsupported, "Query", "metadata filter: Weaviate cannot match the string value of %q", f.Key)
			}
			return w.WithValueText(x), nil
		case float64:
			return w.WithValueNumber(x), nil
		}
		return w.WithValueBoolean(v.(bool)), nil
	}
	switch f.Op {
	case message.OpExists:
		w := filters.Where().WithPath([]string{propMetaKeys}).WithOperator(filters.ContainsAny).WithValueText(f.Key)
		if f.Exists {
			return w, nil
		}
		return not(w), nil
	case message.OpEq:
		return eq(f.Value)
	case message.OpNe:
		w, err := eq(f.Value)
		if err != nil {
			return nil, err
		}
		return not(w), nil
	case message.OpIn, message.OpNin:
		ops := []*filters.WhereBuilder{never()}
		for _, v := range f.Values {
			w, err := eq(v)
			if err != nil {
				return nil, err
			}
			ops = append(ops, w)
		}
		in := filters.Where().WithOperator(filters.Or).WithOperands(ops)
		if f.Op == message.OpNin {
			return not(in), nil
		}
		return in, nil
	}
	op := map[message.Op]filters.WhereOperator{message.OpGt: filters.GreaterThan, message.OpGte: filters.GreaterThanEqual,
		message.OpLt: filters.LessThan, message.OpLte: filters.LessThanEqual}[f.Op]
	kind, operand := metaNumber, f.Value
	if t, isTime := f.Value.(time.Time); isTime {
		kind, operand = metaMillis, float64(message.FilterMillis(t))
	}
	name, err := prop(kind, f.Key)
	if err != nil || name == "" {
		return never(), err
	}
	return filters.Where().WithPath([]string{name}).WithOperator(op).WithValueNumber(operand.(float64)), nil
}

// metaHit decodes the metadata returned with a hit.
func metaHit(v any) map[string]any {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	var md map[string]any
	if json.Unmarshal([]byte(s), &md) != nil {
		return nil
	}
	return md
}

// scopeWhere is the where filter of a query: the thread (when set) AND the
// metadata filter (when set); nil when neither is.
func scopeWhere(thread string, meta *filters.WhereBuilder) *filters.WhereBuilder {
	var ops []*filters.WhereBuilder
	if thread != "" {
		ops = append(ops, filters.Where().WithPath([]string{propThreadID}).WithOperator(filters.Equal).WithValueText(thread))
	}
	if meta != nil {
		ops = append(ops, meta)
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return ops[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}
