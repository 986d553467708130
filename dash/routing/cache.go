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
type Cache struct {
	policy   string
	capacity int
	experts  int
	held     []bool
	n        int
	access   uint64   // the current access's stamp
	last     []uint64 // last access that used each key
	count    []uint64 // LFU: selections of each key
	// LRU list of held keys (most recent at head)
	next, prev []int32
	head, tail int32
	// LFU heap of held keys, least (count, last) first
	heap []int32
	pos  []int32
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
	c := &Cache{policy: policy, capacity: capacity, experts: experts, held: make([]bool, keys), last: make([]uint64, keys), head: -1, tail: -1}
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
			}
		}
	case PolicyLRU:
		c.next, c.prev = make([]int32, keys), make([]int32, keys)
	case PolicyLFU:
		c.count, c.pos = make([]uint64, keys), make([]int32, keys)
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
				c.unlink(k)
				c.pushFront(k)
			}
		}
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] || c.capacity == 0 {
				continue
			}
			if c.n >= c.capacity {
				v := c.tail
				if c.last[v] == c.access { // every held expert is in use now
					break
				}
				c.unlink(v)
				c.held[v] = false
				c.n--
				c.Stats.Evictions++
			}
			c.held[k] = true
			c.n++
			c.pushFront(k)
			fills++
		}
	case PolicyLFU:
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] {
				c.fix(k)
			}
		}
		for _, e := range experts {
			k := int32(base + int(e))
			if c.held[k] || c.capacity == 0 {
				continue
			}
			if c.n >= c.capacity {
				v := c.heap[0]
				if c.last[v] == c.access || c.count[k] <= c.count[v] {
					continue // admission: not more popular than the least held
				}
				c.remove(v)
				c.held[v] = false
				c.n--
				c.Stats.Evictions++
			}
			c.held[k] = true
			c.n++
			c.insert(k)
			fills++
		}
	}
	c.Stats.Fills += int64(fills)
	return hits, fills
}

// LRU list.

func (c *Cache) pushFront(k int32) {
	c.prev[k], c.next[k] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = k
	}
	c.head = k
	if c.tail < 0 {
		c.tail = k
	}
}

func (c *Cache) unlink(k int32) {
	p, n := c.prev[k], c.next[k]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
}

// LFU heap of held keys, ordered by (count, last access).

func (c *Cache) less(i, j int) bool {
	a, b := c.heap[i], c.heap[j]
	if c.count[a] != c.count[b] {
		return c.count[a] < c.count[b]
	}
	return c.last[a] < c.last[b]
}

func (c *Cache) swap(i, j int) {
	c.heap[i], c.heap[j] = c.heap[j], c.heap[i]
	c.pos[c.heap[i]], c.pos[c.heap[j]] = int32(i), int32(j)
}

func (c *Cache) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(i, p) {
			return
		}
		c.swap(i, p)
		i = p
	}
}

func (c *Cache) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(c.heap) && c.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(c.heap) && c.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		c.swap(i, m)
		i = m
	}
}

// fix restores the heap after key k's count or last access changed.
func (c *Cache) fix(k int32) {
	c.up(int(c.pos[k]))
	c.down(int(c.pos[k]))
}

func (c *Cache) insert(k int32) {
	c.heap = append(c.heap, k)
	c.pos[k] = int32(len(c.heap) - 1)
	c.up(len(c.heap) - 1)
}

func (c *Cache) remove(k int32) {
	i := int(c.pos[k])
	last := len(c.heap) - 1
	if i != last {
		c.swap(i, last)
	}
	c.heap = c.heap[:last]
	c.pos[k] = -1
	if i < len(c.heap) {
		c.up(i)
		c.down(i)
	}
}
