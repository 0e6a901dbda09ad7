#!/usr/bin/env bash
# Tests of the lfbloom command: every subcommand on every kind of filter, its exit codes, and bad
# input (missing, corrupt or foreign files, empty input, invalid numbers, over-long keys, a full disk).
# Usage: cli_test.sh path/to/lfbloom
set -uo pipefail
lfbloom=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
passed=0 failed=0

check() {  # check NAME EXPECTED_EXIT COMMAND...
  local name=$1 want=$2; shift 2
  "$@" >out.txt 2>err.txt
  local got=$?
  if [ "$got" = "$want" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $name: exit $got, expected $want"; sed 's/^/  stderr: /' err.txt | head -5
  fi
}
expect() {  # expect NAME CONDITION...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $name"; fi
}
one_line_error() { [ "$(wc -l <err.txt)" = 1 ] && grep -q '^lfbloom ' err.txt; }
json() {  # json PYTHON_CONDITION: checks out.txt's JSON object, d
  python3 -c 'import json, sys; d = json.load(open("out.txt")); assert eval("(" + sys.argv[1] + ")"), d' "$1"
}

seq 1 20000 | sed 's/^/user:/' > keys.txt
seq 20001 40000 | sed 's/^/user:/' > more.txt
seq 1 1000 | sed 's/^/absent:/' > absent.txt

# ---- the subcommands ----------------------------------------------------------------------------
check "build from a file" 0 "$lfbloom" build -o f.lfb -n 40000 -p 0.01 keys.txt
check "build from stdin" 0 sh -c "\"$lfbloom\" build -o s.lfb -n 40000 < keys.txt"
expect "same filter from file and stdin" cmp -s f.lfb s.lfb
for layout in blocked classic counting split-block one-word two-word cuckoo; do  # bulk builds: the same file whatever the threads
  check "build $layout on 1 thread" 0 "$lfbloom" build -o t1.lfb -n 40000 --kind $layout keys.txt
  check "build $layout on 3 threads" 0 "$lfbloom" build -o t3.lfb -n 40000 --kind $layout --threads 3 keys.txt
  check "build $layout on every CPU" 0 "$lfbloom" build -o t0.lfb -n 40000 --kind $layout -t 0 keys.txt
  expect "$layout: the same file on 1, 3 and every thread" sh -c 'cmp -s t1.lfb t3.lfb && cmp -s t1.lfb t0.lfb'
done
check "threads is a number" 2 "$lfbloom" build -o t.lfb -n 40000 --threads many keys.txt

# ---- every layout through every command ---------------------------------------------------------
# Built from keys.txt, then more.txt added: every one of those keys answers maybe, absent keys
# mostly no, and info describes what was built.
for kind in classic blocked counting split-block one-word two-word cuckoo; do
  check "$kind: build" 0 "$lfbloom" build -o $kind.lfb -n 40000 -p 0.01 --kind $kind keys.txt
  expect "$kind: build counts the keys" grep -q "^built $kind.lfb: 20,000 keys$" err.txt
  check "$kind: build with --layout, --kind's older name" 0 "$lfbloom" build -o $kind-alias.lfb -n 40000 -p 0.01 --layout $kind keys.txt
  expect "$kind: the same file with --layout" cmp -s $kind.lfb $kind-alias.lfb
  check "$kind: info" 0 "$lfbloom" info $kind.lfb
  expect "$kind: info names the kind and its sizing" sh -c "grep -q '^kind *$kind\$' out.txt && grep -q '^capacity *40,000\$' out.txt && grep -q '^target_fpr *0.01\$' out.txt"
  expect "$kind: info lists no parts" sh -c '! grep -q "^part " out.txt'
  check "$kind: info --json" 0 "$lfbloom" info --json $kind.lfb
  expect "$kind: info --json describes it" json 'd["kind"] == d["sub_kind"] == "'$kind'" and d["parts"] == 1 and "part_info" not in d
    and d["capacity"] == 40000 and d["target_fpr"] == 0.01 and d["seed"] == 0 and 19000 < d["estimated_count"] < 21000
    and 0 < d["slots_set"] < d["slots"] and abs(d["fill_ratio"] - d["slots_set"] / d["slots"]) < 1e-9 and d["bytes"] > 0
    and 0 < d["expected_fpr"] < 0.01 and not d["near_capacity"]'
  check "$kind: query" 0 "$lfbloom" query $kind.lfb keys.txt
  expect "$kind: every built key answers maybe" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 20000 ]'
  check "$kind: query absent keys" 0 "$lfbloom" query $kind.lfb absent.txt
  expect "$kind: absent keys mostly answer no" sh -c '[ "$(grep -c "^no	absent:" out.txt)" -gt 970 ]'
  check "$kind: add" 0 "$lfbloom" add $kind.lfb more.txt
  expect "$kind: add counts the keys read" grep -q '^20,000 keys read, [0-9,]* new$' err.txt
  check "$kind: query after add" 0 sh -c "cat keys.txt more.txt absent.txt | \"$lfbloom\" query $kind.lfb"
  expect "$kind: every built and added key answers maybe" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 40000 ] && [ "$(grep -c "^no	absent:" out.txt)" -gt 950 ]'
  check "$kind: info after add" 0 "$lfbloom" info --json $kind.lfb
  expect "$kind: about 40000 keys estimated" json '38000 < d["estimated_count"] < 42000'
  cp $kind.lfb before.lfb
  case $kind in
    counting|cuckoo)
      check "$kind: remove" 0 "$lfbloom" remove $kind.lfb more.txt
      expect "$kind: remove counts the removed keys" grep -q '^20,000 removed, 0 not present (left unchanged)$' err.txt
      check "$kind: query after remove" 0 sh -c "cat keys.txt more.txt | \"$lfbloom\" query $kind.lfb"
      expect "$kind: the kept keys answer maybe, the removed ones mostly no" sh -c '[ "$(grep -c "^maybe	user:[0-9]*$" out.txt)" -lt 20100 ] && [ "$(head -20000 out.txt | grep -c "^maybe	")" = 20000 ]'
      ;;
    *)
      check "$kind: remove is refused" 3 "$lfbloom" remove $kind.lfb more.txt
      expect "$kind: the refusal is one line naming the file" sh -c "grep -q '^lfbloom remove: $kind.lfb: ' err.txt && [ \$(wc -l < err.txt) = 1 ]"
      expect "$kind: a refused remove leaves the file" cmp -s $kind.lfb before.lfb
      ;;
  esac
  check "$kind: build a second filter" 0 "$lfbloom" build -o $kind-2.lfb -n 40000 -p 0.01 --kind $kind absent.txt
  if [ $kind = cuckoo ]; then
    check "$kind: merge is refused" 3 "$lfbloom" merge -o $kind-m.lfb $kind.lfb $kind-2.lfb
    expect "$kind: the merge refusal is one line" one_line_error
    expect "$kind: a refused merge writes nothing" test ! -e $kind-m.lfb
  else
    check "$kind: merge" 0 "$lfbloom" merge -o $kind-m.lfb $kind.lfb $kind-2.lfb
    check "$kind: query the merged filter" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query $kind-m.lfb"
    expect "$kind: the merged filter holds both filters' keys" sh -c '[ "$(grep -c "^maybe	" out.txt)" = 21000 ]'
  fi
done
check "merge of two kinds" 3 "$lfbloom" merge -o x.lfb blocked.lfb classic.lfb
expect "the two-kinds error is one line" one_line_error

# ---- kinds' own parameters ------------------------------------------------------------------------
check "counting with 8-bit counters" 0 "$lfbloom" build -o c8.lfb -n 40000 --kind counting --counter-bits 8 keys.txt
check "info of 8-bit counters" 0 "$lfbloom" info --json c8.lfb
expect "8-bit counters, 20000 keys" json 'd["kind"] == "counting" and d["slot_bits"] == 8 and 19000 < d["estimated_count"] < 21000'
check "a counter width no format has" 2 "$lfbloom" build -o c5.lfb -n 40000 --kind counting --counter-bits 5 keys.txt
check "an exact geometry" 0 "$lfbloom" build -o exact.lfb --slots 131072 --hashes 5 --kind classic --seed 7 keys.txt
check "info of an exact geometry" 0 "$lfbloom" info --json exact.lfb
expect "the slots, hashes and seed asked for" json 'd["kind"] == "classic" and d["slots"] == 131072 and d["hashes"] == 5 and d["seed"] == 7'
check "the exact geometry answers every key" 0 "$lfbloom" query exact.lfb keys.txt --maybe-only
expect "all 20000 in the exact geometry" sh -c '[ "$(wc -l < out.txt)" = 20000 ]'
check "--slots and --capacity at once" 2 "$lfbloom" build -o y.lfb --slots 131072 --hashes 5 -n 1000 keys.txt
check "--slots and --rate at once" 2 "$lfbloom" build -o y.lfb --slots 131072 --hashes 5 -p 0.1 keys.txt
check "--hashes without --slots" 2 "$lfbloom" build -o y.lfb -n 1000 --hashes 5 keys.txt
check "no --capacity nor --slots" 2 "$lfbloom" build -o y.lfb keys.txt
expect "the missing sizing is one line" one_line_error
check "--kind and --layout that agree" 0 "$lfbloom" build -o y.lfb -n 40000 --kind classic --layout classic keys.txt
check "--kind and --layout that disagree" 2 "$lfbloom" build -o y.lfb -n 40000 --kind classic --layout blocked keys.txt
expect "the disagreement is one line" one_line_error
check "a swappable filter is not built" 2 "$lfbloom" build -o y.lfb -n 40000 --kind swappable keys.txt
expect "the kind error lists the kinds" grep -q 'classic, blocked, counting, split-block, one-word, two-word, cuckoo, scalable, rotating' err.txt
check "scalable sub-filters that are classic" 2 "$lfbloom" build -o y.lfb -n 40000 --kind scalable --sub-kind classic keys.txt
check "scalable sub-filters of no kind" 2 "$lfbloom" build -o y.lfb -n 40000 --kind scalable --sub-kind fancy keys.txt
check "scalable growth below 1" 2 "$lfbloom" build -o y.lfb -n 40000 --kind scalable --growth 0.5 keys.txt
check "scalable tightening of 1" 2 "$lfbloom" build -o y.lfb -n 40000 --kind scalable --tightening 1 keys.txt
check "a scalable filter past --max-filters" 5 "$lfbloom" build -o sfull.lfb -n 1000 --kind scalable --max-filters 2 keys.txt
expect "the refusal is one line naming the key" sh -c '[ "$(wc -l < err.txt)" = 1 ] && grep -q "at key 3,[0-9]* of this run (nothing was written)" err.txt'
expect "a refused build writes nothing" sh -c '! ls sfull.lfb* >/dev/null 2>&1'
check "a scalable filter over the memory limit" 5 "$lfbloom" build -o y.lfb -n 100000 --kind scalable --memory-limit 1000 keys.txt
check "a rotating filter of one generation" 2 "$lfbloom" build -o y.lfb -n 40000 --kind rotating --generations 1 keys.txt
check "a rotating filter of 65 generations" 2 "$lfbloom" build -o y.lfb -n 40000 --kind rotating --generations 65 keys.txt
check "a negative period" 2 "$lfbloom" build -o y.lfb -n 40000 --kind rotating --period -1 keys.txt
check "a period past 2^64 ns" 2 "$lfbloom" build -o y.lfb -n 40000 --kind rotating --period 1e11 keys.txt
check "composites are not exact geometries" 2 "$lfbloom" build -o y.lfb --slots 131072 --hashes 5 --kind rotating keys.txt
check "info" 0 "$lfbloom" info f.lfb
expect "info shows the kind" grep -q '^kind *blocked$' out.txt
check "info --json" 0 "$lfbloom" info --json f.lfb
expect "info --json parses" json 'd["kind"] == "blocked" and d["capacity"] == 40000 and 19000 < d["estimated_count"] < 21000'

check "query" 0 "$lfbloom" query f.lfb keys.txt
expect "every added key answers maybe" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 20000 ]'
check "query absent keys" 0 "$lfbloom" query f.lfb absent.txt
expect "absent keys mostly answer no" sh -c '[ "$(grep -c "^no	" out.txt)" -gt 970 ]'
check "query --maybe-only" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query f.lfb --maybe-only"
expect "--maybe-only prints keys only" sh -c '[ "$(grep -c "^user:" out.txt)" = 20000 ] && ! grep -q "	" out.txt'
check "add" 0 "$lfbloom" add f.lfb more.txt
check "added keys are present" 0 "$lfbloom" query f.lfb more.txt --maybe-only
expect "all 20000 more" sh -c '[ "$(wc -l < out.txt)" = 20000 ]'
check "build counting" 0 "$lfbloom" build -o c.lfb -n 40000 --kind counting keys.txt
check "remove" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" remove c.lfb"
expect "remove counts removed and absent keys" grep -q '^20,000 removed, 1,000 not present' err.txt
check "after removing everything" 0 "$lfbloom" info --json c.lfb
expect "the counting filter is empty" python3 -c 'import json; assert json.load(open("out.txt"))["slots_set"] == 0'
check "remove on a bit filter" 3 "$lfbloom" remove f.lfb keys.txt
expect "remove error is one line" one_line_error
check "build cuckoo" 0 "$lfbloom" build -o k.lfb -n 40000 -p 0.001 --kind cuckoo keys.txt
check "info cuckoo --json" 0 "$lfbloom" info --json k.lfb
expect "cuckoo info counts its fingerprints" json 'd["kind"] == "cuckoo" and d["slots_set"] == 20000 and d["slot_bits"] == 14 and d["hashes"] == 2 and d["capacity"] == 40000'
check "info cuckoo" 0 "$lfbloom" info k.lfb
expect "cuckoo info shows the fingerprints stored" grep -q '^slots_set *20,000$' out.txt
expect "cuckoo info shows the fingerprint width" grep -q '^slot_bits *14$' out.txt
check "build cuckoo with 16-bit fingerprints" 0 "$lfbloom" build -o k16.lfb -n 40000 -p 0.001 --kind cuckoo --fingerprint-bits 16 keys.txt
check "info cuckoo 16" 0 "$lfbloom" info --json k16.lfb
expect "the width asked for" json 'd["slot_bits"] == 16 and d["slots"] % 4 == 0 and d["slots_set"] == 20000'
check "a width no format has" 2 "$lfbloom" build -o k15.lfb -n 40000 --kind cuckoo --fingerprint-bits 15 keys.txt
expect "the width error is one line" one_line_error
check "cuckoo add" 0 "$lfbloom" add k.lfb more.txt
check "cuckoo query" 0 sh -c "cat keys.txt more.txt absent.txt | \"$lfbloom\" query k.lfb --maybe-only"
expect "cuckoo answers maybe for all 40000 added keys" sh -c '[ "$(grep -c "^user:" out.txt)" = 40000 ] && [ "$(wc -l < out.txt)" -lt 40005 ]'
check "cuckoo remove" 0 sh -c "cat keys.txt more.txt | \"$lfbloom\" remove k.lfb"
expect "cuckoo remove counts" grep -q '^40,000 removed, 0 not present' err.txt
check "after removing every cuckoo key" 0 "$lfbloom" info --json k.lfb
expect "the cuckoo filter is empty" json 'd["slots_set"] == 0'
check "a full cuckoo filter" 5 "$lfbloom" build -o full.lfb -n 1000 --kind cuckoo keys.txt
expect "full is one line" one_line_error
expect "a full build writes nothing" test ! -e full.lfb
check "cuckoo rate out of reach" 2 "$lfbloom" build -o low.lfb -n 1000 -p 0.00001 --kind cuckoo keys.txt
check "merge cuckoo" 3 "$lfbloom" merge -o x.lfb k.lfb k.lfb
check "build a second compatible filter" 0 "$lfbloom" build -o g.lfb -n 40000 absent.txt
check "merge" 0 "$lfbloom" merge -o m.lfb f.lfb g.lfb
check "merged has both" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query m.lfb --maybe-only"
expect "merged has 21000 keys" sh -c '[ "$(wc -l < out.txt)" = 21000 ]'
check "merge incompatible" 3 "$lfbloom" merge -o x.lfb f.lfb c.lfb
check "build classic" 0 "$lfbloom" build -o classic.lfb -n 40000 --kind classic keys.txt
check "export-guava" 0 "$lfbloom" export-guava classic.lfb guava.bin
expect "Guava header: strategy 1" sh -c '[ "$(head -c 1 guava.bin | od -An -tu1 | tr -d " ")" = 1 ]'
check "import-guava" 0 "$lfbloom" import-guava guava.bin back.lfb
check "imported answers the same" 0 sh -c "\"$lfbloom\" query classic.lfb keys.txt > a.txt && \"$lfbloom\" query back.lfb keys.txt > b.txt && cmp a.txt b.txt"
check "export-guava of a blocked filter" 3 "$lfbloom" export-guava f.lfb nope.bin
expect "the refused export is one line" one_line_error
expect "a refused export writes nothing" sh -c '! ls nope.bin* >/dev/null 2>&1'
check "build split-block" 0 "$lfbloom" build -o split.lfb -n 40000 --kind split-block keys.txt
check "info of a split-block filter" 0 "$lfbloom" info split.lfb
expect "info names the split-block kind" grep -q '^kind *split-block$' out.txt
check "split-block answers every key" 0 "$lfbloom" query split.lfb keys.txt --maybe-only
expect "all 20000 in the split-block filter" sh -c '[ "$(wc -l < out.txt)" = 20000 ]'
check "export-parquet" 0 "$lfbloom" export-parquet split.lfb parquet.bin
"$lfbloom" info --json split.lfb > info.json
expect "the bitset is the filter's bytes" sh -c '[ "$(stat -c %s parquet.bin)" = "$(python3 -c "import json; print(json.load(open(\"info.json\"))[\"bytes\"])")" ]'
check "import-parquet" 0 "$lfbloom" import-parquet parquet.bin split-back.lfb
cat keys.txt absent.txt > both.txt
check "imported bitset answers the same" 0 sh -c "\"$lfbloom\" query split.lfb both.txt > a.txt && \"$lfbloom\" query split-back.lfb both.txt > b.txt && cmp a.txt b.txt"
check "export-parquet of a blocked filter" 3 "$lfbloom" export-parquet f.lfb nope.bin
head -c 100 parquet.bin > odd.bin
check "import-parquet of a bitset that is not whole blocks" 3 "$lfbloom" import-parquet odd.bin nope.lfb
expect "import-parquet error is one line" one_line_error
for words in one two; do
  check "build $words-word" 0 "$lfbloom" build -o $words.lfb -n 40000 --kind $words-word keys.txt
  check "info of a $words-word filter" 0 "$lfbloom" info $words.lfb
  expect "info names the $words-word kind" grep -q "^kind *$words-word$" out.txt
  check "info --json of a $words-word filter" 0 "$lfbloom" info --json $words.lfb
  expect "$words-word: 1 bit per slot, 19000-21000 keys estimated" json 'd["kind"] == "'$words'-word" and d["slot_bits"] == 1 and 19000 < d["estimated_count"] < 21000'
  check "$words-word add" 0 "$lfbloom" add $words.lfb more.txt
  check "$words-word answers every key" 0 sh -c "cat keys.txt more.txt | \"$lfbloom\" query $words.lfb --maybe-only"
  expect "all 40000 in the $words-word filter" sh -c '[ "$(wc -l < out.txt)" = 40000 ]'
  check "$words-word query absent keys" 0 "$lfbloom" query $words.lfb absent.txt
  expect "$words-word: absent keys mostly answer no" sh -c '[ "$(grep -c "^no	" out.txt)" -gt 970 ]'
  check "export-parquet of a $words-word filter" 3 "$lfbloom" export-parquet $words.lfb nope.bin
done
check "merge one-word with two-word" 3 "$lfbloom" merge -o x.lfb one.lfb two.lfb
expect "merge error is one line" one_line_error
check "demo" 0 "$lfbloom" demo --users 20000 --threads 4
expect "demo passes its self-check" grep -q 'self-check: passed' out.txt
expect "demo reports no false negatives" grep -q 'false negatives: 0' out.txt
check "demo with a cuckoo filter" 0 "$lfbloom" demo --users 20000 --threads 2 --kind cuckoo --rate 0.001
expect "the cuckoo demo passes its self-check" grep -q 'self-check: passed' out.txt
expect "the cuckoo demo names its filter" grep -q 'filter          cuckoo, ' out.txt
check "demo refuses a rate a cuckoo filter cannot reach" 2 "$lfbloom" demo --users 1000 --kind cuckoo --rate 1e-9
for kind in classic blocked counting split-block one-word two-word cuckoo scalable rotating; do
  check "demo with a $kind filter" 0 "$lfbloom" demo --users 20000 --threads 2 --kind $kind
  expect "the $kind demo names its filter" grep -q "^  filter          $kind[, ]" out.txt
  expect "the $kind demo passes its self-check" sh -c "grep -q 'self-check: passed' out.txt && grep -q 'false negatives: 0 ' out.txt"
done
check "demo with a scalable filter of cuckoo sub-filters" 0 "$lfbloom" demo --users 20000 --threads 2 --kind scalable --sub-kind cuckoo --rate 0.001
expect "the scalable cuckoo demo names its parts" grep -q '^  filter          scalable of 1 cuckoo part, ' out.txt
check "demo with a rotating filter of 3 generations" 0 "$lfbloom" demo --users 20000 --threads 2 --kind rotating --generations 3 --double-write
expect "the rotating demo names its parts" grep -q '^  filter          rotating of 4 blocked parts, ' out.txt
# A saved filter in front of the database: built from every user it passes, from half of them it
# turns real users away and the self-check fails.
seq 0 19999 | sed 's/^/user:/' > users.txt
check "build the users' filter" 0 "$lfbloom" build -o users.lfb -n 20000 -p 0.005 --kind split-block users.txt
check "demo with a saved filter" 0 "$lfbloom" demo --users 20000 --threads 2 --filter users.lfb
expect "the saved filter is loaded, at its own rate" grep -q '^  filter          split-block, .* at 0.5%, .*(loaded in' out.txt
expect "the saved filter passes the self-check" grep -q 'self-check: passed' out.txt
head -10000 users.txt > half.txt
check "build half the users' filter" 0 "$lfbloom" build -o half.lfb -n 20000 half.txt
check "demo with a filter that lacks users" 1 "$lfbloom" demo --users 20000 --threads 2 --filter half.lfb
expect "the self-check fails on false negatives" grep -q 'SELF-CHECK FAILED' err.txt
check "demo with a saved filter and a kind" 2 "$lfbloom" demo --users 20000 --filter users.lfb --kind blocked
check "demo with a missing filter" 3 "$lfbloom" demo --users 20000 --filter nothing.lfb
# A rewrite keeps the file's mode (a 0600 filter of user ids stays private); new files get 0666
# less the umask.
cp f.lfb private.lfb && chmod 600 private.lfb
check "add to a 0600 filter" 0 "$lfbloom" add private.lfb absent.txt
expect "add keeps mode 600" test "$(stat -c %a private.lfb)" = 600
check "remove from a 0640 filter" 0 sh -c "chmod 640 c.lfb && \"$lfbloom\" remove c.lfb absent.txt"
expect "remove keeps mode 640" test "$(stat -c %a c.lfb)" = 640
check "build under umask 077" 0 sh -c "umask 077 && \"$lfbloom\" build -o u077.lfb -n 100 absent.txt"
expect "new file under umask 077 is 600" test "$(stat -c %a u077.lfb)" = 600
check "build under umask 002" 0 sh -c "umask 002 && \"$lfbloom\" build -o u002.lfb -n 100 absent.txt"
expect "new file under umask 002 is 664" test "$(stat -c %a u002.lfb)" = 664
# info --json is JSON whatever the path holds: quotes, backslashes, a newline, UTF-8; bytes that
# are not UTF-8 become U+FFFD.
odd=$(printf 'a "quoted" \\ back\nslash-\303\251-\346\227\245.lfb')
cp f.lfb "$odd"
check "info --json of an odd path" 0 sh -c '"$0" info --json "$1" | python3 -c "import json,os,sys; d = json.load(sys.stdin); assert d[\"file\"] == sys.argv[1], (d[\"file\"], sys.argv[1]); assert d[\"kind\"] == \"blocked\"" "$1"' "$lfbloom" "$odd"
raw=$(printf 'raw-\377-byte.lfb')
cp f.lfb "$raw"
check "info --json of a non-UTF-8 path" 0 sh -c '"$0" info --json "$1" | python3 -c "import json,sys; assert json.load(sys.stdin)[\"file\"] == \"raw-\\ufffd-byte.lfb\""' "$lfbloom" "$raw"
check "help" 0 "$lfbloom" --help
check "build --help" 0 "$lfbloom" build --help

# ---- bad input ----------------------------------------------------------------------------------
check "no command" 2 "$lfbloom"
check "unknown command" 2 "$lfbloom" frobnicate
check "missing filter file" 3 "$lfbloom" info nothing.lfb
expect "missing file error is one line" one_line_error
check "missing keys file" 3 "$lfbloom" build -o y.lfb -n 10 nothing.txt
check "keys path is a directory" 3 "$lfbloom" build -o y.lfb -n 10 .
head -c 100 f.lfb > truncated.lfb
check "truncated filter" 3 "$lfbloom" info truncated.lfb
cp f.lfb flipped.lfb
printf '\x55' | dd of=flipped.lfb bs=1 seek=5000 conv=notrunc 2>/dev/null
check "corrupt filter" 3 "$lfbloom" query flipped.lfb keys.txt
expect "corrupt error names the problem" grep -q 'checksum' err.txt
check "foreign file" 3 "$lfbloom" info keys.txt
check "guava file given as lfbloom" 3 "$lfbloom" info guava.bin
check "lfbloom file given as guava" 3 "$lfbloom" import-guava f.lfb z.lfb
check "empty input" 3 sh -c "\"$lfbloom\" build -o e.lfb -n 10 < /dev/null"
expect "no output after empty input" test ! -e e.lfb
check "invalid capacity" 2 "$lfbloom" build -o y.lfb -n abc keys.txt
check "zero capacity" 2 "$lfbloom" build -o y.lfb -n 0 keys.txt
check "rate above 1" 2 "$lfbloom" build -o y.lfb -n 10 -p 2 keys.txt
check "rate NaN" 2 "$lfbloom" build -o y.lfb -n 10 -p nan keys.txt
check "unknown kind" 2 "$lfbloom" build -o y.lfb -n 10 --kind fancy keys.txt
check "unknown layout (--kind's older name)" 2 "$lfbloom" build -o y.lfb -n 10 --layout fancy keys.txt
check "absurd capacity" 5 "$lfbloom" build -o y.lfb -n 1000000000000 keys.txt
check "over the memory limit" 5 "$lfbloom" build -o y.lfb -n 10000000 --memory-limit 1000 keys.txt
head -c 70000 /dev/zero | tr '\0' 'k' > long.txt
check "key over the limit" 3 "$lfbloom" build -o y.lfb -n 10 long.txt
expect "long key error names the line" grep -q 'line 1' err.txt
check "key limit can be raised" 0 "$lfbloom" build -o y.lfb -n 10 --max-key-bytes 100000 long.txt
# A full disk: file size limited to 64 KiB (SIGXFSZ ignored, so writes fail with EFBIG).
check "full disk" 4 bash -c "trap '' XFSZ; ulimit -f 64; \"$lfbloom\" build -o full.lfb -n 1000000 keys.txt"
expect "nothing half-written after a full disk" sh -c '! ls full.lfb* >/dev/null 2>&1'
cp f.lfb before.lfb
check "failed add leaves the file" 4 bash -c "trap '' XFSZ; ulimit -f 16; \"$lfbloom\" add f.lfb more.txt"
expect "file unchanged after a failed add" cmp -s f.lfb before.lfb
check "answers to a full device" 4 sh -c "\"$lfbloom\" query f.lfb keys.txt > /dev/full"

# ---- composites: scalable and rotating files ----------------------------------------------------
composite_tests() {
  # A scalable filter sized for 5,000 keys grows to hold 20,000: sub-filters of 5,000, 10,000 and
  # 20,000 keys (growth 2), each at half the previous one's rate (tightening 0.5).
  check "scalable: build" 0 "$lfbloom" build -o sc.lfb -n 5000 -p 0.01 --kind scalable keys.txt
  check "scalable: info --json" 0 "$lfbloom" info --json sc.lfb
  expect "scalable: info --json lists its sub-filters" json 'd["kind"] == "scalable" and d["sub_kind"] == "blocked" and d["parts"] == 3
    and [(p["kind"], p["capacity"]) for p in d["part_info"]] == [("blocked", 5000), ("blocked", 10000), ("blocked", 20000)]
    and d["part_info"][1]["target_fpr"] == d["part_info"][0]["target_fpr"] / 2 and d["target_fpr"] == 0.01
    and sum(p["slots"] for p in d["part_info"]) == d["slots"] and sum(p["bytes"] for p in d["part_info"]) == d["bytes"]
    and sum(p["slots_set"] for p in d["part_info"]) == d["slots_set"] and 19000 < d["estimated_count"] < 21000'
  check "scalable: info" 0 "$lfbloom" info sc.lfb
  expect "scalable: info names it and its parts" sh -c "grep -q '^kind *scalable\$' out.txt && grep -q '^part 2\$' out.txt && grep -q '^  kind *blocked\$' out.txt && ! grep -q '^part 3' out.txt"
  check "scalable: query" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query sc.lfb"
  expect "scalable: every built key answers maybe, absent keys mostly no" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 20000 ] && [ "$(grep -c "^no	absent:" out.txt)" -gt 970 ]'
  check "scalable: add" 0 "$lfbloom" add sc.lfb more.txt
  check "scalable: query after add" 0 sh -c "cat keys.txt more.txt absent.txt | \"$lfbloom\" query sc.lfb"
  expect "scalable: every built and added key answers maybe" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 40000 ] && [ "$(grep -c "^no	absent:" out.txt)" -gt 970 ]'
  check "scalable: info after add" 0 "$lfbloom" info --json sc.lfb
  expect "scalable: it grew a fourth sub-filter" json 'd["parts"] == 4 == len(d["part_info"]) and d["part_info"][3]["capacity"] == 40000'
  check "scalable: remove is refused" 3 "$lfbloom" remove sc.lfb keys.txt
  expect "scalable: the remove refusal is one line" one_line_error
  check "scalable: merge is refused" 3 "$lfbloom" merge -o sc-m.lfb sc.lfb sc.lfb
  expect "scalable: the merge refusal is one line" one_line_error
  expect "scalable: a refused merge writes nothing" test ! -e sc-m.lfb
  check "scalable: build with its own growth and tightening" 0 "$lfbloom" build -o sc4.lfb -n 5000 --kind scalable --growth 4 --tightening 0.25 keys.txt
  check "scalable: info of its own growth" 0 "$lfbloom" info --json sc4.lfb
  expect "scalable: sub-filters 4 times larger, at a quarter of the rate" json '[p["capacity"] for p in d["part_info"]] == [5000, 20000]
    and d["part_info"][1]["target_fpr"] == d["part_info"][0]["target_fpr"] / 4'

  # A scalable filter of cuckoo sub-filters removes keys.
  check "scalable cuckoo: build" 0 "$lfbloom" build -o scc.lfb -n 5000 -p 0.001 --kind scalable --sub-kind cuckoo keys.txt
  check "scalable cuckoo: info --json" 0 "$lfbloom" info --json scc.lfb
  expect "scalable cuckoo: cuckoo sub-filters holding every key" json 'd["kind"] == "scalable" and d["sub_kind"] == "cuckoo" and d["parts"] == 3
    and all(p["kind"] == "cuckoo" for p in d["part_info"]) and d["slots_set"] == 20000'
  check "scalable cuckoo: query" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query scc.lfb"
  expect "scalable cuckoo: every built key answers maybe, absent keys mostly no" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 20000 ] && [ "$(grep -c "^no	absent:" out.txt)" -gt 990 ]'
  check "scalable cuckoo: remove" 0 "$lfbloom" remove scc.lfb keys.txt
  expect "scalable cuckoo: remove counts the removed keys" grep -q '^20,000 removed, 0 not present' err.txt
  check "scalable cuckoo: query after remove" 0 "$lfbloom" query scc.lfb keys.txt
  expect "scalable cuckoo: the removed keys mostly answer no" sh -c '[ "$(grep -c "^no	user:" out.txt)" -gt 19900 ]'

  # A rotating filter: generations of the same size, the keys in the current one (part 0).
  check "rotating: build" 0 "$lfbloom" build -o rot.lfb -n 40000 -p 0.01 --kind rotating --generations 3 keys.txt
  check "rotating: info --json" 0 "$lfbloom" info --json rot.lfb
  expect "rotating: info --json lists its generations" json 'd["kind"] == "rotating" and d["sub_kind"] == "blocked" and d["parts"] == 3
    and d["capacity"] == 40000 and d["target_fpr"] == 0.01 and d["generation"] == 0
    and [p["kind"] for p in d["part_info"]] == ["blocked"] * 3 and len(set(p["slots"] for p in d["part_info"])) == 1
    and d["part_info"][0]["slots_set"] > 0 and d["part_info"][1]["slots_set"] == d["part_info"][2]["slots_set"] == 0
    and 19000 < d["estimated_count"] < 21000'
  check "rotating: info" 0 "$lfbloom" info rot.lfb
  expect "rotating: info names it and its generations" sh -c "grep -q '^kind *rotating\$' out.txt && grep -q '^part 2\$' out.txt && ! grep -q '^part 3' out.txt"
  check "rotating: query" 0 sh -c "cat keys.txt absent.txt | \"$lfbloom\" query rot.lfb"
  expect "rotating: every built key answers maybe, absent keys mostly no" sh -c '[ "$(grep -c "^maybe	user:" out.txt)" = 20000 ] && [ "$(grep -c "^no	absent:" out.txt)" -gt 970 ]'
  check "rotating: add" 0 "$lfbloom" add rot.lfb more.txt
  check "rotating: query after add" 0 sh -c "cat keys.txt more.txt | \"$lfbloom\" query rot.lfb --maybe-only"
  expect "rotating: every built and added key answers maybe" sh -c '[ "$(wc -l < out.txt)" = 40000 ]'
  check "rotating: remove is refused" 3 "$lfbloom" remove rot.lfb keys.txt
  check "rotating: merge is refused" 3 "$lfbloom" merge -o rot-m.lfb rot.lfb rot.lfb
  expect "rotating: the merge refusal is one line" one_line_error
  # Double writes add to the current and the next generation, in a ring of G + 1.
  check "rotating double write: build" 0 "$lfbloom" build -o rotd.lfb -n 40000 --kind rotating --double-write keys.txt
  check "rotating double write: info --json" 0 "$lfbloom" info --json rotd.lfb
  expect "rotating double write: 3 generations, 2 written" json 'd["parts"] == 3 and [p["slots_set"] > 0 for p in d["part_info"]].count(True) == 2'
  check "rotating double write: query" 0 "$lfbloom" query rotd.lfb keys.txt --maybe-only
  expect "rotating double write: every built key answers maybe" sh -c '[ "$(wc -l < out.txt)" = 20000 ]'
  # An hour's period: the keys just added are all there when the file is read again.
  check "rotating with a period: build" 0 "$lfbloom" build -o rotp.lfb -n 40000 --kind rotating --period 3600 keys.txt
  check "rotating with a period: query" 0 "$lfbloom" query rotp.lfb keys.txt --maybe-only
  expect "rotating with a period: every built key answers maybe" sh -c '[ "$(wc -l < out.txt)" = 20000 ]'
  check "rotating with a manual clock: build" 0 "$lfbloom" build -o rotm.lfb -n 40000 --kind rotating --period 3600 --manual-clock keys.txt
  check "rotating with a manual clock: info" 0 "$lfbloom" info --json rotm.lfb
  expect "rotating with a manual clock: a rotating filter" json 'd["kind"] == "rotating" and d["generation"] == 0'
  check "merge of a scalable and a rotating filter" 3 "$lfbloom" merge -o x.lfb sc.lfb rot.lfb
}
composite_tests

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
