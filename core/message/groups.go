package message

// ToolGroups partitions msgs (by index) into linked groups: messages that share
// a tool call id (a call and its result, even in different rows) form one group.
// Groups are returned in order of their first member.
func ToolGroups(msgs []Message) [][]int {
	parent := make([]int, len(msgs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	for i := range msgs {
		for _, id := range msgs[i].ToolCallIDs() {
			if j, ok := owner[id]; ok {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			} else {
				owner[id] = i
			}
		}
	}
	index := map[int]int{}
	var groups [][]int
	for i := range msgs {
		r := find(i)
		g, ok := index[r]
		if !ok {
			g = len(groups)
			index[r] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}
