// go-redis v9 against the module: BF.* and CF.* through go-redis's own methods and typed results, under
// RESP2 and RESP3. The server is clients.py's: its port comes as $LFBLOOM_REDIS_PORT.
package clients

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

func client(t *testing.T, protocol int) *redis.Client {
	port := os.Getenv("LFBLOOM_REDIS_PORT")
	if port == "" {
		t.Fatal("LFBLOOM_REDIS_PORT is not set: run through tests/redis/clients/clients.py")
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + port, Protocol: protocol, DisableIdentity: true})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return rdb
}

// val is a command's typed reply; an error fails the test.
func val[T any](t *testing.T, cmd interface {
	Args() []interface{}
	Err() error
	Val() T
}) T {
	t.Helper()
	if err := cmd.Err(); err != nil {
		t.Fatalf("%v: unexpected error: %v", cmd.Args(), err)
	}
	return cmd.Val()
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %#v, want %#v", what, got, want)
	}
}

// refused: err must be a reply error from the server (redis.Error) with text in its message.
func refused(t *testing.T, what string, err error, text string) {
	t.Helper()
	var reply redis.Error
	if !errors.As(err, &reply) || !strings.Contains(err.Error(), text) {
		t.Errorf("%s: got error %v, want a redis.Error with %q", what, err, text)
	}
}

func items(prefix string, n int) []interface{} {
	out := make([]interface{}, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func repeat(b bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func TestBloom(t *testing.T) {
	for _, protocol := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", protocol), func(t *testing.T) { scenario(t, client(t, protocol)) })
	}
}

func scenario(t *testing.T, rdb *redis.Client) {
	ctx := context.Background()

	equal(t, "reserve", val(t, rdb.BFReserve(ctx, "k", 0.001, 1000)), "OK")
	refused(t, "reserve on an existing key", rdb.BFReserve(ctx, "k", 0.001, 1000).Err(), "item exists")
	equal(t, "add", val(t, rdb.BFAdd(ctx, "k", "a")), true)
	equal(t, "add again", val(t, rdb.BFAdd(ctx, "k", "a")), false)
	equal(t, "madd", val(t, rdb.BFMAdd(ctx, "k", "a", "b", "c")), []bool{false, true, true})
	equal(t, "exists", val(t, rdb.BFExists(ctx, "k", "b")), true)
	for _, never := range items("never-", 10) {
		equal(t, fmt.Sprintf("exists %v, never added", never), val(t, rdb.BFExists(ctx, "k", never)), false)
	}
	equal(t, "mexists", val(t, rdb.BFMExists(ctx, "k", "a", "b", "c", "x", "y")), []bool{true, true, true, false, false})
	equal(t, "card", val(t, rdb.BFCard(ctx, "k")), int64(3))
	equal(t, "card of a missing key", val(t, rdb.BFCard(ctx, "missing")), int64(0))

	info := val(t, rdb.BFInfo(ctx, "k"))
	if info.Size <= 0 {
		t.Errorf("info Size: got %d, want > 0", info.Size)
	}
	equal(t, "info", info, redis.BFInfo{Capacity: 1000, Size: info.Size, Filters: 1, ItemsInserted: 3, ExpansionRate: 2})
	single := redis.BFInfo{
		Capacity:      val(t, rdb.BFInfoCapacity(ctx, "k")).Capacity,
		Size:          val(t, rdb.BFInfoSize(ctx, "k")).Size,
		Filters:       val(t, rdb.BFInfoFilters(ctx, "k")).Filters,
		ItemsInserted: val(t, rdb.BFInfoItems(ctx, "k")).ItemsInserted,
		ExpansionRate: val(t, rdb.BFInfoExpansion(ctx, "k")).ExpansionRate,
	}
	equal(t, "info, field by field", single, info)
	refused(t, "info of a missing key", rdb.BFInfo(ctx, "missing").Err(), "not found")

	options := &redis.BFInsertOptions{Capacity: 100, Error: 0.01, Expansion: 4}
	equal(t, "insert", val(t, rdb.BFInsert(ctx, "ins", options, "x", "y", "x")), []bool{true, true, false})
	inserted := val(t, rdb.BFInfo(ctx, "ins"))
	equal(t, "insert's options", inserted, redis.BFInfo{Capacity: 100, Size: inserted.Size, Filters: 1, ItemsInserted: 2, ExpansionRate: 4})
	nocreate := &redis.BFInsertOptions{NoCreate: true}
	refused(t, "insert NOCREATE on a missing key", rdb.BFInsert(ctx, "missing", nocreate, "x").Err(), "not found")

	equal(t, "reserve NONSCALING", val(t, rdb.BFReserveNonScaling(ctx, "fixed", 0.01, 10)), "OK")
	// A NONSCALING filter's Expansion rate is nil (RedisBloom's reply too): go-redis's BFInfo reads
	// every field as an integer and gives redis.Nil, with RedisBloom 2.8.2 as with the module.
	equal(t, "info of a NONSCALING filter: go-redis's redis.Nil", rdb.BFInfo(ctx, "fixed").Err(), redis.Nil)
	added, err := 0, error(nil)
	for i := 0; i < 20 && err == nil; i++ {
		var fresh bool
		if fresh, err = rdb.BFAdd(ctx, "fixed", fmt.Sprintf("f%d", i)).Result(); fresh {
			added++
		}
	}
	refused(t, "a full NONSCALING filter refuses", err, "full")
	equal(t, "... once it holds its capacity", []int64{int64(added), val(t, rdb.BFCard(ctx, "fixed"))}, []int64{10, 10})
	refused(t, "madd into a full NONSCALING filter", rdb.BFMAdd(ctx, "fixed", "one-more").Err(), "full")

	equal(t, "reserve a filter that grows", val(t, rdb.BFReserve(ctx, "grow", 0.01, 100)), "OK")
	all := items("g", 250)
	val(t, rdb.BFMAdd(ctx, "grow", all...))
	grown := val(t, rdb.BFInfo(ctx, "grow"))
	card := val(t, rdb.BFCard(ctx, "grow"))
	equal(t, "grown: sub-filters, capacity 100 + 200", []int64{grown.Filters, grown.Capacity}, []int64{2, 300})
	equal(t, "grown: items inserted is BF.CARD", grown.ItemsInserted, card)
	if card < 240 || card > 250 {
		t.Errorf("grown: card %d, want about 250", card)
	}
	equal(t, "grown: every item present", val(t, rdb.BFMExists(ctx, "grow", all...)), repeat(true, 250))

	// SCANDUMP into LOADCHUNK: chunks are binary, in Go strings of bytes
	var chunks []redis.ScanDump
	for cursor := int64(0); ; {
		dump := val(t, rdb.BFScanDump(ctx, "grow", cursor))
		if dump.Iter == 0 {
			break
		}
		if len(chunks) > 1000 {
			t.Fatal("scandump: no end after 1000 chunks")
		}
		chunks, cursor = append(chunks, dump), dump.Iter
	}
	binary := false
	for _, chunk := range chunks {
		binary = binary || !utf8.ValidString(chunk.Data)
		equal(t, fmt.Sprintf("loadchunk %d", chunk.Iter), val(t, rdb.BFLoadChunk(ctx, "copy", chunk.Iter, chunk.Data)), "OK")
	}
	equal(t, "scandump has a non-UTF-8 chunk", binary, true)
	equal(t, "the copy's info", val(t, rdb.BFInfo(ctx, "copy")), grown)
	equal(t, "the copy's items", val(t, rdb.BFMExists(ctx, "copy", all...)), repeat(true, 250))
	independent := []bool{val(t, rdb.BFAdd(ctx, "copy", "new")), val(t, rdb.BFExists(ctx, "grow", "new"))}
	equal(t, "the copy is independent", independent, []bool{true, false})

	val(t, rdb.Set(ctx, "string", "v", 0))
	refused(t, "add to a string", rdb.BFAdd(ctx, "string", "x").Err(), "WRONGTYPE")
}

// TestCuckoo: CF.* through go-redis's own methods, as TestBloom; it holds for RedisBloom 2.8.2 too
// (CF.INFO's Size and Number of buckets aside, which are each module's own).
func TestCuckoo(t *testing.T) {
	for _, protocol := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", protocol), func(t *testing.T) { cuckooScenario(t, client(t, protocol)) })
	}
}

func cuckooScenario(t *testing.T, rdb *redis.Client) {
	ctx := context.Background()

	reserve := &redis.CFReserveOptions{Capacity: 1000, BucketSize: 4, MaxIterations: 50, Expansion: 2}
	equal(t, "reserve with options", val(t, rdb.CFReserveWithArgs(ctx, "k", reserve)), "OK")
	refused(t, "reserve on an existing key", rdb.CFReserve(ctx, "k", 1000).Err(), "item exists")
	equal(t, "add", val(t, rdb.CFAdd(ctx, "k", "a")), true)
	equal(t, "add again stores a copy", val(t, rdb.CFAdd(ctx, "k", "a")), true)
	equal(t, "addnx of a present item", val(t, rdb.CFAddNX(ctx, "k", "a")), false)
	equal(t, "addnx of a new one", val(t, rdb.CFAddNX(ctx, "k", "b")), true)
	equal(t, "count", val(t, rdb.CFCount(ctx, "k", "a")), int64(2))
	equal(t, "exists", val(t, rdb.CFExists(ctx, "k", "b")), true)
	for _, never := range items("never-", 10) {
		equal(t, fmt.Sprintf("exists %v, never added", never), val(t, rdb.CFExists(ctx, "k", never)), false)
	}
	equal(t, "mexists", val(t, rdb.CFMExists(ctx, "k", "a", "b", "x")), []bool{true, true, false})
	equal(t, "del", val(t, rdb.CFDel(ctx, "k", "a")), true)
	equal(t, "count after a del", val(t, rdb.CFCount(ctx, "k", "a")), int64(1))
	refused(t, "del on a missing key", rdb.CFDel(ctx, "missing", "a").Err(), "Not found")

	info := val(t, rdb.CFInfo(ctx, "k"))
	if info.Size <= 0 || info.NumBuckets <= 0 {
		t.Errorf("info Size and Number of buckets: got %d and %d, want > 0", info.Size, info.NumBuckets)
	}
	equal(t, "info", info, redis.CFInfo{Size: info.Size, NumBuckets: info.NumBuckets, NumFilters: 1, NumItemsInserted: 2,
		NumItemsDeleted: 1, BucketSize: 4, ExpansionRate: 2, MaxIteration: 50})
	refused(t, "info of a missing key", rdb.CFInfo(ctx, "missing").Err(), "not found")

	equal(t, "insert creates", val(t, rdb.CFInsert(ctx, "ins", &redis.CFInsertOptions{Capacity: 500}, "x", "y", "x")),
		[]bool{true, true, true})
	equal(t, "insertnx", val(t, rdb.CFInsertNX(ctx, "ins", nil, "x", "z")), []int64{0, 1})
	refused(t, "insert NOCREATE on a missing key", rdb.CFInsert(ctx, "missing", &redis.CFInsertOptions{NoCreate: true}, "x").Err(),
		"not found")
	all := items("c", 300)
	val(t, rdb.CFInsert(ctx, "ins", nil, all...))
	equal(t, "every inserted item present", val(t, rdb.CFMExists(ctx, "ins", all...)), repeat(true, 300))

	// SCANDUMP into LOADCHUNK: each module's own bytes, opaque to the client. The last reply,
	// [0, nil] in RedisBloom 2.8.2 as in the module, is redis.Nil to go-redis.
	var chunks []redis.ScanDump
	for cursor := int64(0); ; {
		dump, err := rdb.CFScanDump(ctx, "ins", cursor).Result()
		if errors.Is(err, redis.Nil) {
			break
		}
		if err != nil || dump.Iter == 0 {
			t.Fatalf("scandump at %d: got %v, %v; want a chunk, or redis.Nil at the end", cursor, dump.Iter, err)
		}
		if len(chunks) > 1000 {
			t.Fatal("scandump: no end after 1000 chunks")
		}
		chunks, cursor = append(chunks, dump), dump.Iter
	}
	for _, chunk := range chunks {
		equal(t, fmt.Sprintf("loadchunk %d", chunk.Iter), val(t, rdb.CFLoadChunk(ctx, "copy", chunk.Iter, chunk.Data)), "OK")
	}
	equal(t, "the copy's info", val(t, rdb.CFInfo(ctx, "copy")), val(t, rdb.CFInfo(ctx, "ins")))
	equal(t, "the copy's items", val(t, rdb.CFMExists(ctx, "copy", all...)), repeat(true, 300))

	val(t, rdb.Set(ctx, "string", "v", 0))
	refused(t, "add to a string", rdb.CFAdd(ctx, "string", "x").Err(), "WRONGTYPE")
}
