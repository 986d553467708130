package routing

import (
	"cmp"
	"fmt"
	"slices"
)

// Replacement policies of the expert cache.
const (
	// PolicyStatic pins the most selected experts of a profile (the trace,
	// or the run's own routing drawn ahead: an offline profile, the best a
	// fixed placement can do) and never replaces them.
	PolicyStatic = "static"
	// PolicyLRU fills every missed expert, evicting the least recently
	// used one.
	PolicyLRU = "lru"
	// PolicyLFU counts every selection of every expert and fills a missed
	// expert only when it has been selected more often than the least
	// frequently selected expert held, which it evicts (ties keep the
	// held expert).
	PolicyLFU = "lfu"
)

// Policies lists the replacement policies.
func Policies() []string { return []string{PolicyStatic, PolicyLRU, PolicyLFU} }

// Cache is the HBM expert cache: at most Capacity experts (pairs of an MoE
// layer and an expert) held in HBM under a replacement policy. A pass asks
// it, layer by layer, which of the experts its tokens selected it holds
// (read from HBM instead of HBF) and which misses it fills (written into
// HBM as they arrive). An expert read in an access is not evicted by a
// fill of the same access (its HBM copy is being read). The cache starts
// empty (static: holding its pinned experts).
//
// The replacing policies give each MoE layer its share of the slots
// (Capacity / layers, the first layers one more for the remainder) and
// replace within the layer, as per-layer expert caches do (Eliseev and
// Mazur, arXiv:2312.17238, §3.1: an LRU cache of k experts per layer): a
// pass visits the layers in turn, so one recency order over all layers
// would evict every layer's experts before the next step comes back to
// them whenever a step selects more experts than the cache holds. The
// static policy pins the most selected pairs of the whole model, however
// they fall over the layers.
type Cache struct {
	policy   string
	capacity int
	experts  int
	held     []bool
	n        int      // held in all
	slots    []int    // per layer: the slots (replacing policies)
	used     []int    // per layer: held
	access   uint64   // the current access's stamp
	last     []uint64 // last access that used each key
	count    []uint64 // LFU: selections of each key
	// LRU lists of held keys, one per layer (most recent at head)
	next, prev []int32
	head, tail []int32
	// LFU heaps of held keys, one per layer, least (count, last) first
	heaps [][]int32
	pos   []int32
	// Stats accumulates what the cache served.
	Stats CacheStats
}

// CacheStats counts a cache's work.
type CacheStats struct {
	// Hits and Misses count selected experts (distinct per layer and
	// pass) held and not held; Fills the misses written into HBM;
	// Evictions the experts replaced.
	Hits, Misses, Fills, Evictions int64
}

// NewCache makes a cache of capacity experts over layers MoE layers of
// experts experts each. profile (for PolicyStatic: selections per key,
// layer-major, len layers*experts) chooses the pinned experts; the other
// policies ignore it.
func NewCache(policy string, capacity, layers, experts int, profile []int64) (*Cache, error) {
	keys := layers * experts
	if capacity < 0 || layers < 1 || experts < 1 {
		return nil, fmt.Errorf("routing: expert cache of %d experts over %d layers of %d", capacity, layers, experts)
	}
	capacity = min(capacity, keys)
	c := &Cache{policy: policy, capacity: capacity, experts: experts, held: make([]bool, keys), last: make([]uint64, keys),
		slots: make([]int, layers), used: make([]int, layers)}
	if policy != PolicyStatic {
		c.capacity = 0
		for l := range c.slots {
			c.slots[l] = min(experts, capacity/layers)
			if l < capacity%layers {
				c.slots[l] = min(experts, c.slots[l]+1)
			}
			c.capacity += c.slots[l]
		}
	}
	switch policy {
	case PolicyStatic:
		if len(profile) != keys {
			return nil, fmt.Errorf("routing: static expert cache needs a profile of %d keys, got %d", keys, len(profile))
		}
		order := make([]int32, keys)
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(profile[b], profile[a]) })
		for _, k := range order[:capacity] {
			if profile[k] > 0 {
				c.held[k] = true
				c.n++
				c.used[int(k)/experts]++
			}
		}
	case PolicyLRU:
		c.next, c.prev = make([]int32, keys), make([]int32, keys)
		c.head, c.tail = make([]int32, layers), make([]int32, layers)
		for l := range c.head {
			c.head[l], c.tail[l] = -1, -1
		}
	case PolicyLFU:
		c.count, c.pos = make([]uint64, keys), make([]int32, keys)
		c.heaps = make([][]int32, layers)
		for i := range c.pos {
			c.pos[i] = -1
		}
	default:
		return nil, fmt.Errorf("routing: expert cache policy %q: want %v", policy, Policies())
	}
	return c, nil
}

// Policy is the cache's replacement policy.
func (c *Cache) Policy() string { return c.policy }

// Capacity is the most experts the cache holds.
func (c *Cache) Capacity() int { return c.capacity }

// Len is the number of experts held.
func (c *Cache) Len() int { return c.n }

// Holds reports whether the cache holds expert e of MoE layer l.
func (c *Cache) Holds(l, e int) bool { return c.held[l*c.experts+e] }

// Access serves MoE layer l's selected experts (distinct ids): it returns
// how many the cache holds (hits, read from HBM) and how many misses it
// fills. hit, when not nil, is set per expert (true: held).
func (c *Cache) Access(l int, experts []uint16, hit []bool) (hits, fills int) {
	c.access++
	base := l * c.experts
	for i, e := range experts {
		k := base + int(e)
		h := c.held[k]
		if hit != nil {
			hit[i] = h
		}
		if h {
			hits++
		}
		c.last[k] = c.access
		if c.count != nil {
			c.count[k]++
		}
	}
	c.Stats.Hits += int64(hits)
	c.Stats.Misses += int64(len(experts) - hits)
	switch c.policy {
	case PolicyLRU:
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] {
				c.unlink(l, k)
				c.pushFront(l, k)
			}
		}
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] || c.slots[l] == 0 {
				continue
			}
			if c.used[l] >= c.slots[l] {
				v := c.tail[l]
				if c.last[v] == c.access { // every expert the layer holds is in use now
					break
				}
				c.unlink(l, v)
				c.drop(l, v)
			}
			c.take(l, k)
			c.pushFront(l, k)
			fills++
		}
	case PolicyLFU:
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] {
				c.fix(l, k)
			}
		}
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] || c.slots[l] == 0 {
				continue
			}
			if c.used[l] >= c.slots[l] {
				v := c.heaps[l][0]
				if c.last[v] == c.access || c.count[k] <= c.count[v] {
					continue // admission: not more popular than the least held
				}
				c.remove(l, v)
				c.drop(l, v)
			}
			c.take(l, k)
			c.insert(l, k)
			fills++
		}
	}
	c.Stats.Fills += int64(fills)
	return hits, fills
}

func (c *Cache) take(l int, k int32) {
	c.held[k] = true
	c.n++
	c.used[l]++
}

func (c *Cache) drop(l int, v int32) {
	c.held[v] = false
	c.n--
	c.used[l]--
	c.Stats.Evictions++
}

// LRU lists.

func (c *Cache) pushFront(l int, k int32) {
	c.prev[k], c.next[k] = -1, c.head[l]
	if c.head[l] >= 0 {
		c.prev[c.head[l]] = k
	}
	c.head[l] = k
	if c.tail[l] < 0 {
		c.tail[l] = k
	}
}

func (c *Cache) unlink(l int, k int32) {
	p, n := c.prev[k], c.next[k]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head[l] = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail[l] = p
	}
}

// LFU heaps of held keys, ordered by (count, last access).

func (c *Cache) less(h []int32, i, j int) bool {
	a, b := h[i], h[j]
	if c.count[a] != c.count[b] {
		return c.count[a] < c.count[b]
	}
	return c.last[a] < c.last[b]
}

func (c *Cache) swap(h []int32, i, j int) {
	h[i], h[j] = h[j], h[i]
	c.pos[h[i]], c.pos[h[j]] = int32(i), int32(j)
}

func (c *Cache) up(h []int32, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(h, i, p) {
			return
		}
		c.swap(h, i, p)
		i = p
	}
}

func (c *Cache) down(h []int32, i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && c.less(h, l, m) {
			m = l
		}
		if r := l + 1; r < len(h) && c.less(h, r, m) {
			m = r
		}
		if m == i {
			return
		}
		c.swap(h, i, m)
		i = m
	}
}

// fix restores layer l's heap after key k's count or last access changed.
func (c *Cache) fix(l int, k int32) {
	h := c.heaps[l]
	c.up(h, int(c.pos[k]))
	c.down(h, int(c.pos[k]))
}

func (c *Cache) insert(l int, k int32) {
	c.heaps[l] = append(c.heaps[l], k)
	h := c.heaps[l]
	c.pos[k] = int32(len(h) - 1)
	c.up(h, len(h)-1)
}

func (c *Cache) remove(l int, k int32) {
	h := c.heaps[l]
	i := int(c.pos[k])
	last := len(h) - 1
	if i != last {
		c.swap(h, i, last)
	}
	h = h[:last]
	c.heaps[l] = h
	c.pos[k] = -1
	if i < len(h) {
		c.up(h, i)
		c.down(h, i)
	}
}
