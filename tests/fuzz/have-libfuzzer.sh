#!/bin/sh
# Print "yes" when the compiler $1 (default clang) links a libFuzzer target
# with ASan and UBSan, "no" otherwise.
cc=${1:-clang}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' > "$tmp/t.c"
if "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1; then
    echo yes
else
    echo no
fi
