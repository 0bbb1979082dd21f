#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a while (default 20 s).
# Usage: scripts/fuzz.sh [seconds]
# New crash inputs land in build/fuzz/crashes/; the corpora in build/fuzz/corpus/.
set -euo pipefail
seconds=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$out" -DGEOALIGN_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$out" -j "$(nproc)"

seed() {  # name, then seed files
  local dir="$out/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do cp "$f" "$dir/"; done
}
seed fuzz_tokenizer "$root/examples/sample_pairs.tsv" "$root/tests/fixtures/annotated_addresses.txt"
seed fuzz_pair_reader "$root/examples/sample_pairs.tsv"
seed fuzz_safetensors "$root/tests/fixtures/tiny_bert/model.safetensors"
seed fuzz_parser "$root/examples/sample_pairs.tsv"
mkdir -p "$out/corpus/fuzz_tree_list"
printf '%s' '{"bias": [0, 0], "trees": [{"class": 0, "nodes": [[0, 0.5, 1, 2, 0.0], [-1, 0, 0, 0, -1.5e-3],
 [-1, 0, 0, 0, 2]]}, {"nodes": [], "class": 1}], "features": ["a"]}' >"$out/corpus/fuzz_tree_list/head"
# fuzz_http: the first byte sets the read chunk size, the rest is what a client sends.
mkdir -p "$out/corpus/fuzz_http"
http_seed() {  # name, chunk-size byte, request line and headers, body, what follows
  local length; length=$(printf '%s' "$4" | wc -c)
  printf '%s%s\r\nContent-Length: %s\r\n\r\n%s%s' "$2" "$3" "$length" "$4" "${5:-}" >"$out/corpus/fuzz_http/$1"
}
http_seed match $'\x07' $'POST /v1/match HTTP/1.1\r\nHost: x' '{"pairs":[["北京市朝阳区建国路88号","北京朝阳建外88号"]]}' \
  $'GET /metrics HTTP/1.1\r\n\r\n'
http_seed embed $'\x40' $'POST /v1/embed HTTP/1.0\r\nExpect: 100-continue' '{"addresses":["杭州",""]}'
http_seed rerank $'\x11' $'POST /rerank HTTP/1.1\r\nHost: x' '{"query":"杭州","texts":["杭州市","北京"],"raw_scores":true,"return_text":true}'
http_seed embeddings $'\x21' $'POST /v1/embeddings HTTP/1.1\r\nOrigin: http://a.test' '{"input":["杭州","北京"],"encoding_format":"base64","model":"m"}'
http_seed kserve $'\x20' $'POST /v2/models/geoalign/infer HTTP/1.1\r\nConnection: keep-alive' \
  '{"id":"7","inputs":[{"name":"pairs","datatype":"BYTES","shape":[1,2],"data":[["a","b"]]}]}'
# Binary tensor data: the JSON header, then a 4-byte little-endian length before each
# BYTES element (printf writes the NUL bytes a shell string cannot hold).
header='{"inputs":[{"name":"addr1","datatype":"BYTES","shape":[1],"parameters":{"binary_data_size":5}},{"name":"addr2","datatype":"BYTES","shape":[1],"parameters":{"binary_data_size":6}}],"outputs":[{"name":"score","parameters":{"binary_data":true}}]}'
{
  printf '\x10POST /v2/models/geoalign/infer HTTP/1.1\r\nInference-Header-Content-Length: %s\r\n' "${#header}"
  printf 'Content-Length: %s\r\n\r\n%s' "$((${#header} + 11))" "$header"
  printf '\x01\x00\x00\x00a\x02\x00\x00\x00bc'
} >"$out/corpus/fuzz_http/kserve_binary"
# fuzz_index_files: the first byte picks the reader (mod 4: records, parses, lexical
# postings, or edits of a valid vector graph).
mkdir -p "$out/corpus/fuzz_index_files"
printf '\x00\x03\x00\x00\x00\x00\x00\x00\x00abc\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00' \
  >"$out/corpus/fuzz_index_files/records"
printf '\x02\x04\x00\x00\x00\x00\x00\x00\x00' >"$out/corpus/fuzz_index_files/lexical"
printf '\x03' >"$out/corpus/fuzz_index_files/graph"             # the valid graph as it is
printf '\x03\x34\x00\xf0\x64\x00\x07' >"$out/corpus/fuzz_index_files/graph_edits"  # entry point; a link

mkdir -p "$out/corpus/fuzz_aliases"
printf '人大\t中国人民大学\n工行\t工商银行\n\0北京市海淀区人大附中\0北京市海淀区中国人民大学附属中学' >"$out/corpus/fuzz_aliases/table"
printf '\0中国工商银行深圳分行\0工行深圳分行' >"$out/corpus/fuzz_aliases/rules"

mkdir -p "$out/crashes"
for target in fuzz_tokenizer fuzz_safetensors fuzz_pair_reader fuzz_parser fuzz_http fuzz_index_files fuzz_tree_list \
  fuzz_aliases; do
  echo "== $target for ${seconds}s" >&2
  "$out/tests/fuzz/$target" -max_total_time="$seconds" -max_len=65536 -artifact_prefix="$out/crashes/$target-" \
    -print_final_stats=0 "$out/corpus/$target" 2>"$out/$target.log" || {
    tail -n 40 "$out/$target.log" >&2
    echo "fuzz.sh: $target found a failure (input saved in $out/crashes/)" >&2
    exit 1
  }
  grep -E "^#[0-9]+.*(DONE|pulse)" "$out/$target.log" | tail -n 1 >&2 || true
done
