#!/bin/sh
# record-less.sh re-records less-ja.bin: a real `less -R` session on
# Japanese text with colours, at 80x24, captured from a tmux pane with
# pipe-pane. Needs tmux, less and python3. The keys are sent with pauses so
# that less draws each step; the recording is what less wrote, whatever the
# timing.
set -eu
out=$(cd "$(dirname "$0")" && pwd)/less-ja.bin
dir=$(mktemp -d)
trap 'tmux -S "$dir/s" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
python3 - "$dir/ja.txt" <<'PY'
import random, sys
random.seed(7)
words = ["日本語","テキスト","端末","エミュレータ","の","を","に","は","表示","確認",
         "折り返し","幅","全角","文字","abc","Go","tmux","less","スクロール","領域","、","。"]
out = []
for i in range(300):
    s = "".join(random.choice(words) for _ in range(random.randint(1, 40)))
    if i % 7 == 3:
        s = "\x1b[3%dm%s\x1b[0m" % (i % 8, s)
    if i % 11 == 5:
        s = "\x1b[1;4%dm強調\x1b[0m " % (i % 8) + s
    out.append("%04d %s" % (i, s))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
unset TMUX
export LANG=C.UTF-8
t() { tmux -u -S "$dir/s" -f /dev/null "$@"; }
t new-session -d -x 80 -y 24 "sh -c 'stty -echo; read x; exec env TERM=xterm-256color LESS= less -R $dir/ja.txt'"
sleep 0.3
t pipe-pane -o "cat > '$out'"
sleep 0.2
t send-keys Enter; sleep 0.5
for k in j j j j j Space k k k k b b Space Space Space d u G g; do
	t send-keys "$k"; sleep 0.25
done
t send-keys / 端末 Enter; sleep 0.4
t send-keys n; sleep 0.3
t send-keys n; sleep 0.3
for k in j j k k Space; do t send-keys "$k"; sleep 0.25; done
t pipe-pane
sleep 0.2
