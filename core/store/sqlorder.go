package store

// Keyword is the SQL keyword of d: "DESC" for Desc, "ASC" otherwise (the
// default of MessageQuery and ResourceMessageQuery; ThreadQuery's default,
// Desc, is filled in by NormalizeThreadQuery).
func (d Direction) Keyword() string {
	if d == Desc {
		return "DESC"
	}
	return "ASC"
}

// OrderSQL is the ORDER BY list of a normalized ThreadQuery, for SQL
// drivers: the order column, then the id as tie-break, both in q.Direction.
// The id must compare as bytes (a "C" collation, SQLite's BINARY).
func (q ThreadQuery) OrderSQL() string {
	col := "created_at"
	if q.OrderBy == "updatedAt" {
		col = "updated_at"
	}
	dir := q.Direction.Keyword()
	return col + " " + dir + ", id " + dir
}
