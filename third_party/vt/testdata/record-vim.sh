#!/bin/sh
# record-vim.sh re-records vim-ja.bin: a real `vim` session (no vimrc) on
# Japanese text at 80x24, captured from a tmux pane with pipe-pane: moving,
# paging, searching, inserting Japanese text, splitting and closing a window.
# Needs tmux, vim and python3. The recording is what vim wrote.
set -eu
out=$(cd "$(dirname "$0")" && pwd)/vim-ja.bin
dir=$(mktemp -d)
trap 'tmux -S "$dir/s" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
python3 - "$dir/ja.txt" <<'PY'
import random, sys
random.seed(11)
words = ["日本語","テキスト","端末","エミュレータ","の","を","に","は","表示","確認",
         "折り返し","幅","全角","文字","abc","Go","vim","編集","スクロール","領域","、","。"]
out = []
for i in range(200):
    s = "".join(random.choice(words) for _ in range(random.randint(1, 45)))
    out.append("%04d %s" % (i, s))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
unset TMUX
export LANG=C.UTF-8
t() { tmux -u -S "$dir/s" -f /dev/null "$@"; }
t new-session -d -x 80 -y 24 "sh -c 'stty -echo; read x; exec env TERM=xterm-256color vim -u NONE -N -i NONE -c \"syntax off\" -c \"set number ruler\" $dir/ja.txt'"
sleep 0.3
t pipe-pane -o "cat > '$out'"
sleep 0.2
t send-keys Enter; sleep 0.8
for k in j j j j j C-f C-f k k k C-b G g g; do
	t send-keys "$k"; sleep 0.25
done
t send-keys / 端末 Enter; sleep 0.4
t send-keys n; sleep 0.3
t send-keys o "追加した行：全角の文字を入力" Escape; sleep 0.4
t send-keys A " 末尾に追記" Escape; sleep 0.4
t send-keys : split Enter; sleep 0.5
t send-keys C-w j; sleep 0.3
t send-keys 3 0 j; sleep 0.3
t send-keys : q Enter; sleep 0.4
t send-keys 1 0 0 G z t; sleep 0.4
t pipe-pane
sleep 0.2
