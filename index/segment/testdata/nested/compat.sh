if command -v x >/dev/null; then
  f1() {
    echo a
  }
else
  f1() {
    echo b
  }
fi

# helper
f2() { # <array...>
  local -a t=()
  echo
}

f3() {
  echo
}
