# SPDX-License-Identifier: GPL-2.0
# bash completion for latbpf(8), installed as .../bash-completion/completions/latbpf
#
# Options, probe families and benchmark names come from the latbpf being
# completed (--help, bench --help, bench --list), so they follow the binary.

# the options an option table in --help lists: "  -p, --pid PID" and "  --json"
_latbpf_options()
{
	"$1" "${@:2}" --help 2>/dev/null |
		sed -nE 's/^ {1,6}(-[a-zA-Z], )?(--[a-z][a-z-]*).*/\1 \2/p' |
		tr -d ',' | tr ' ' '\n' | sed '/^$/d'
}

# the families, from the line after --probes in --help
_latbpf_families()
{
	"$1" --help 2>/dev/null |
		awk '/--probes LIST/ { getline; gsub(/[ ,]+/, " "); print; exit }'
	echo all
}

# benchmark names (the first column of --list), their groups and results
_latbpf_benchmarks()
{
	"$1" bench --list 2>/dev/null |
		awk '/^[a-z]/ { print $1; g[$2] = 1 }
		     /^ +results:/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z_0-9]+$/) print $i }
		     END { for (k in g) print k }'
}

# one more item of a comma-separated list: the candidates completed after
# the last comma, the part before it kept
_latbpf_list()
{
	local words=$1 head= last=$cur
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	COMPREPLY=($(compgen -P "$head" -W "$words" -- "$last"))
	[[ ${#COMPREPLY[@]} -eq 1 ]] && compopt -o nospace 2>/dev/null
}

_latbpf_pids()
{
	local p
	p=$(cd /proc && printf '%s ' [0-9]*)
	_latbpf_list "$p"
}

_latbpf_tids()
{
	local t
	t=$(cd /proc && printf '%s ' [0-9]*/task/[0-9]* | sed -E 's#[0-9]+/task/##g')
	_latbpf_list "$t"
}

_latbpf_cpus()
{
	local c
	c=$(cd /sys/devices/system/cpu 2>/dev/null && printf '%s ' cpu[0-9]* | tr -d 'cpu')
	_latbpf_list "$c"
}

_latbpf_bench()
{
	local exe=$1 i=$2
	case $prev in
	--json | --hlog)
		_filedir
		return
		;;
	--dir)
		_filedir -d
		return
		;;
	--cpu)
		_latbpf_cpus
		return
		;;
	--duration | --interval)
		COMPREPLY=($(compgen -W "100ms 500ms 1s 5s 10s" -- "$cur"))
		return
		;;
	--runs)
		COMPREPLY=($(compgen -W "1 3 5 10" -- "$cur"))
		return
		;;
	esac
	# bench compare [--force] A.json B.json
	if [[ ${words[i + 1]} == compare && $cword -gt $((i + 1)) ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--force" -- "$cur"))
		else
			_filedir json
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_latbpf_options "$exe" bench) --help" -- "$cur"))
		return
	fi
	local names
	names=$(_latbpf_benchmarks "$exe")
	[[ $cword -eq $((i + 1)) ]] && names+=" compare"
	COMPREPLY=($(compgen -W "$names" -- "$cur"))
}

_latbpf_report()
{
	case $prev in
	--html)
		_filedir html
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "--html" -- "$cur"))
		return
	fi
	_filedir json
}

_latbpf()
{
	local cur prev words cword i exe
	_init_completion || return
	exe=${words[0]}
	# a subcommand is the first word; after "--" a command and its own words
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		bench)
			[[ $i -eq 1 ]] && { _latbpf_bench "$exe" "$i"; return; }
			;;
		report)
			[[ $i -eq 1 ]] && { _latbpf_report; return; }
			;;
		--)
			_command_offset $((i + 1))
			return
			;;
		esac
	done
	case $prev in
	-p | --pid)
		_latbpf_pids
		return
		;;
	-t | --tid)
		_latbpf_tids
		return
		;;
	--probes)
		_latbpf_list "$(_latbpf_families "$exe")"
		return
		;;
	--cpus)
		_latbpf_cpus
		return
		;;
	--cgroup)
		[[ -z $cur ]] && cur=/sys/fs/cgroup/
		_filedir -d
		return
		;;
	--json | --hlog | --web-config | --trace)
		_filedir
		return
		;;
	--record)
		COMPREPLY=($(compgen -W "1s 10s 30s 1m" -- "$cur"))
		return
		;;
	--trigger)
		COMPREPLY=($(compgen -W "hiccup\> runq\> runq.p99\> SIGUSR2" -- "$cur"))
		return
		;;
	-i | --interval | -d | --duration | --threshold)
		COMPREPLY=($(compgen -W "1ms 10ms 100ms 1s 10s 1m" -- "$cur"))
		return
		;;
	--priority)
		COMPREPLY=($(compgen -W "idle normal" -- "$cur"))
		return
		;;
	--prometheus)
		COMPREPLY=($(compgen -W "127.0.0.1:9745 0.0.0.0:9745 [::1]:9745" -- "$cur"))
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_latbpf_options "$exe") --" -- "$cur"))
		return
	fi
	[[ $cword -eq 1 ]] && COMPREPLY=($(compgen -W "bench report" -- "$cur"))
}
complete -F _latbpf latbpf
