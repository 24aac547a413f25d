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

case "$mode" in
failed)
  pick() {
    echo failed
  }
  ;;
*)
  pick() { echo all; }
  ;;
esac
