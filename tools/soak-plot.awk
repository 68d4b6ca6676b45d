# SPDX-License-Identifier: GPL-2.0
# soak.csv (t_s,which,rss_kib,cpu_pct,map_kib,progs) -> SVG on stdout: RSS
# and kernel map memory over time, one line per latbpf instance, the warm-up
# shaded and a +-5 % band around each line's first sample after it (the
# flatness verdict of tools/soak.sh). Plain awk (mawk), no plotting package.
#   awk -F, -v warmup=SECONDS -v title=TEXT -f tools/soak-plot.awk soak.csv
function esc(s) {
	gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
	return s
}
function floor(x) { return x == int(x) || x > 0 ? int(x) : int(x) - 1 }
function nicestep(range, k,   raw, p, m) {
	raw = range / k
	if (raw <= 0)
		return 1
	p = exp(floor(log(raw) / log(10)) * log(10))
	m = raw / p
	return (m <= 1.01 ? 1 : m <= 2.01 ? 2 : m <= 5.01 ? 5 : 10) * p
}
function X(t) { return L + (t / tmax) * PW }
function Y(v, top, ymax) { return top + PH - (v / ymax) * PH }
# panel TOP LABEL COLUMN(3 rss, 5 map)
function panel(top, label, col,   ymax, step, v, i, s, w, pts, ref, tx, xs) {
	ymax = 0
	for (s = 1; s <= ns; s++)
		for (i = 1; i <= n[s]; i++)
			if (val[s, i, col] > ymax)
				ymax = val[s, i, col]
	step = nicestep(ymax * 1.1, 5)
	ymax = (int(ymax * 1.1 / step) + 1) * step
	printf "<rect x='%d' y='%d' width='%d' height='%d' fill='white' stroke='#888'/>\n", L, top, PW, PH
	if (warmup > 0 && warmup < tmax)
		printf "<rect x='%d' y='%d' width='%.1f' height='%d' fill='#eee'/><text x='%.1f' y='%d' fill='#888'>warm-up</text>\n",
			L, top + 1, X(warmup) - L, PH - 2, L + 4, top + 14
	for (v = 0; v <= ymax + step / 2; v += step) {
		printf "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>", L, L + PW, Y(v, top, ymax), Y(v, top, ymax)
		printf "<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n", L - 6, Y(v, top, ymax) + 4, v
	}
	xs = nicestep(tmax / unit, 8)
	for (tx = 0; tx * unit <= tmax + 0.001; tx += xs)
		printf "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#888'/><text x='%.1f' y='%d' text-anchor='middle'>%g</text>\n",
			X(tx * unit), X(tx * unit), top + PH, top + PH + 4, X(tx * unit), top + PH + 17, tx
	printf "<text x='%d' y='%d' font-weight='bold'>%s</text>\n", L, top - 8, esc(label)
	for (s = 1; s <= ns; s++) {
		ref = ""
		for (i = 1; i <= n[s]; i++)
			if (t[s, i] >= warmup && val[s, i, col] != "") {
				ref = val[s, i, col]
				break
			}
		if (ref != "")
			printf "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='%s' fill-opacity='0.12'/>\n",
				X(warmup), Y(ref * 1.05, top, ymax), L + PW - X(warmup),
				Y(ref * 0.95, top, ymax) - Y(ref * 1.05, top, ymax), color[s]
		pts = ""
		for (i = 1; i <= n[s]; i++)
			if (val[s, i, col] != "")
				pts = pts sprintf(" %.1f,%.1f", X(t[s, i]), Y(val[s, i, col], top, ymax))
		printf "<polyline fill='none' stroke='%s' stroke-width='2' points='%s'/>\n", color[s], pts
	}
}
NR > 1 && NF >= 6 {
	if (!($2 in sid)) {
		sid[$2] = ++ns
		name[ns] = $2
	}
	s = sid[$2]
	i = ++n[s]
	t[s, i] = $1
	val[s, i, 3] = $3 == "" ? "" : $3 / 1024
	val[s, i, 5] = $5 == "" ? "" : $5 / 1024
	if ($1 > tmax)
		tmax = $1
}
END {
	if (tmax <= 0)
		tmax = 1
	unit = tmax >= 300 ? 60 : 1
	L = 70; PW = 700; PH = 200; WID = 1000; HEI = 600
	split("#1f77b4 #d62728 #2ca02c #9467bd", palette, " ")
	for (s = 1; s <= ns; s++)
		color[s] = palette[(s - 1) % 4 + 1]
	printf "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' font-family='sans-serif' font-size='12'>\n", WID, HEI, WID, HEI
	printf "<rect width='100%%' height='100%%' fill='white'/>\n"
	printf "<text x='%d' y='22' font-size='15' font-weight='bold'>%s</text>\n", L, esc(title)
	panel(60, "latbpf RSS, MiB (VmRSS)", 3)
	panel(320, "kernel memory of its BPF maps, MiB (memlock)", 5)
	printf "<text x='%d' y='%d' text-anchor='middle'>time, %s</text>\n", L + PW / 2, 320 + PH + 38, unit == 60 ? "minutes" : "seconds"
	for (s = 1; s <= ns; s++) {
		printf "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s' stroke-width='3'/>", L + PW + 20, L + PW + 44, 60 + 20 * s, 60 + 20 * s, color[s]
		printf "<text x='%d' y='%d'>%s</text>\n", L + PW + 50, 64 + 20 * s,
			name[s] == "system" ? "whole system" : name[s] == "pid" ? "--pid target" : esc(name[s])
	}
	printf "<rect x='%d' y='%d' width='24' height='10' fill='#888' fill-opacity='0.25'/><text x='%d' y='%d'>&#177;5 %% of the first</text>\n",
		L + PW + 20, 60 + 20 * (ns + 1) - 5, L + PW + 50, 64 + 20 * (ns + 1)
	printf "<text x='%d' y='%d'>sample after warm-up</text>\n", L + PW + 50, 78 + 20 * (ns + 1)
	print "</svg>"
}
