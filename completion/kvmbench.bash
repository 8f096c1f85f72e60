# SPDX-License-Identifier: GPL-2.0-or-later
# kvmbench.bash: bash completion for kvmbench, installed as .../bash-completion/completions/kvmbench.
#
# Nothing here is a copy of kvmbench's interface: commands and options are read from
# 'kvmbench --help' and 'kvmbench COMMAND --help', suites and tests from 'kvmbench list --json',
# using the kvmbench being completed (the first word of the line), so it cannot go stale.
# Works with or without the bash-completion package; needs bash 4.

# The kvmbench binary of the line being completed, or nothing.
_kvmbench_binary()
{
	local kb=${COMP_WORDS[0]}

	[[ $kb == \~/* ]] && kb=$HOME/${kb#\~/}
	type -P -- "$kb" 2>/dev/null
}

# The commands of 'kvmbench --help', one per line.
_kvmbench_commands()
{
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p'
}

# The options of 'kvmbench COMMAND --help', one per line: SHORT|LONG|ARG|HELP, with
# SHORT and ARG empty when there are none.  Option lines look like
# "  -n, --runs N                 help" and "      --target-ci PCT          help".
_kvmbench_options()
{
	local line short long arg help re
	re='^  (-([[:alnum:]]), |    )--([[:alnum:]][[:alnum:]-]*)( ([A-Z][A-Z0-9_.-]*))?( +(.*))?$'
	"$1" "$2" --help 2>/dev/null | while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		short=${BASH_REMATCH[2]} long=${BASH_REMATCH[3]} arg=${BASH_REMATCH[5]} help=${BASH_REMATCH[7]}
		printf '%s|%s|%s|%s\n' "$short" "$long" "$arg" "$help"
	done
}

# Suites and SUITE/TEST names from 'kvmbench list --json' (with --all: the hidden ones too),
# one per line.  A small JSON scanner: suite names sit at depth 2, test names at depth 4.
_kvmbench_tests()
{
	"$1" list --json ${2:+"$2"} 2>/dev/null | awk '
	{ text = text $0 "\n" }
	END {
		n = length(text); depth = 0; want = 0
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			if (c == "{" || c == "[") depth++
			else if (c == "}" || c == "]") depth--
			else if (c == "\"") {
				s = ""
				for (i++; i <= n; i++) {
					c = substr(text, i, 1)
					if (c == "\\") { i++; s = s substr(text, i, 1); continue }
					if (c == "\"") break
					s = s c
				}
				if (want) {
					if (depth == 2) { suite = s; print s }
					else print suite "/" s
					want = 0
					continue
				}
				j = i + 1
				while (substr(text, j, 1) ~ /[ \t\n]/) j++
				if (substr(text, j, 1) == ":" && s == "name" && (depth == 2 || depth == 4))
					want = 1
			}
		}
	}'
}

# The values an option argument can take, from its help text: "table, json or markdown",
# "...: welch or mann-whitney" or "cores: ...; smt: ...".
_kvmbench_choices()
{
	local IFS=$' \t\n' help=$1 piece words=() re_list re_tag
	re_list='(^|: )([a-z][a-z0-9_-]*(, [a-z][a-z0-9_-]*)* or [a-z][a-z0-9_-]*)'
	re_tag='^([a-z][a-z0-9_-]*): '
	while [[ -n $help ]]; do
		piece=${help%%"; "*}
		[[ $piece =~ $re_tag ]] && words+=("${BASH_REMATCH[1]}")
		[[ $help == *"; "* ]] && help=${help#*"; "} || help=
	done
	if ((${#words[@]} >= 2)); then
		printf '%s\n' "${words[@]}"
	elif [[ $1 =~ $re_list ]]; then
		piece=${BASH_REMATCH[2]//, / }
		read -r -a words <<<"${piece// or / }"
		printf '%s\n' "${words[@]}"
	fi
}

# COMPREPLY from newline-separated candidates in $1 that start with $2.
_kvmbench_reply()
{
	local IFS=$'\n'
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

_kvmbench_files()	# _kvmbench_files PREFIX [GLOB]
{
	compopt -o filenames 2>/dev/null
	if [[ -n ${2:-} ]]; then
		mapfile -t COMPREPLY < <(compgen -d -- "$1"; compgen -f -X "!$2" -- "$1")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$1")
	fi
}

# Whether a word between the command (at $1) and the current word is an operand, not an
# option or an option's value; $2 is the output of _kvmbench_options.
_kvmbench_operand_before()
{
	local i w short long arg help takes
	for ((i = $1 + 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -* ]]; then
			[[ $w == *=* ]] && continue
			takes=
			while IFS='|' read -r short long arg help; do
				[[ $w == "--$long" || ( -n $short && $w == "-$short" ) ]] && takes=$arg
			done <<<"$2"
			[[ -n $takes ]] && ((i++))
			continue
		fi
		[[ $w == = ]] && { ((i++)); continue; }
		return 0
	done
	return 1
}

_kvmbench()
{
	local kb cword=$COMP_CWORD cur prev cmd='' i w opts short long arg help
	local optname='' value_prefix='' list
	COMPREPLY=()
	cur=${COMP_WORDS[cword]-}
	prev=''
	((cword > 0)) && prev=${COMP_WORDS[cword - 1]}
	kb=$(_kvmbench_binary) || return 0
	[[ -n $kb ]] || return 0

	# The command: the first word after kvmbench that is not an option.
	for ((i = 1; i < cword; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		cmd=$w
		break
	done
	local cmdi=$i
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			_kvmbench_reply $'--help\n--version' "$cur"
		else
			_kvmbench_reply "$(_kvmbench_commands "$kb")" "$cur"
		fi
		return 0
	fi
	# 'kvmbench help CMD' takes one command name ('kvmbench --help CMD' is handled above).
	if [[ $cmd == help || ${COMP_WORDS[1]} == -h || ${COMP_WORDS[1]} == --help ]]; then
		((cword == 2)) && _kvmbench_reply "$(_kvmbench_commands "$kb")" "$cur"
		return 0
	fi
	_kvmbench_commands "$kb" | grep -qxF -- "$cmd" || return 0
	opts=$(_kvmbench_options "$kb" "$cmd")

	# The argument of an option: "--opt VALUE", "-o VALUE", "--opt=VALUE" (one word, or three
	# when '=' breaks words as it does by default).
	if [[ $cur == --*=* ]]; then
		optname=${cur%%=*}
		value_prefix=$optname=
		cur=${cur#*=}
	elif [[ $cur == = && $prev == --* ]]; then
		optname=$prev
		cur=
	elif [[ $prev == = && cword -ge 2 ]]; then
		optname=${COMP_WORDS[cword - 2]}
	elif [[ $prev == -* ]]; then
		optname=$prev
	fi
	if [[ -n $optname ]]; then
		while IFS='|' read -r short long arg help; do
			[[ $optname == "--$long" || ( -n $short && $optname == "-$short" ) ]] || continue
			[[ -n $arg ]] || break
			case $arg in
			FILE | FILES | DEV)
				_kvmbench_files "$cur"
				;;
			PROFILE)
				# The bundled names its help lists, and YAML files.
				_kvmbench_files "$cur" '*.yaml'
				mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W "$(_kvmbench_choices "$help")" -- "$cur")
				;;
			DIR)
				compopt -o filenames 2>/dev/null
				mapfile -t COMPREPLY < <(compgen -d -- "$cur")
				;;
			*)
				_kvmbench_reply "$(_kvmbench_choices "$help")" "$cur"
				;;
			esac
			if [[ -n $value_prefix ]]; then
				for i in "${!COMPREPLY[@]}"; do
					COMPREPLY[i]=$value_prefix${COMPREPLY[i]}
				done
			fi
			return 0
		done <<<"$opts"
		[[ -n $value_prefix ]] && return 0
	fi

	if [[ $cur == -* ]]; then
		list=''
		while IFS='|' read -r short long arg help; do
			[[ -n $long ]] && list+="--$long"$'\n'
		done <<<"$opts"
		_kvmbench_reply "$list" "$cur"
		return 0
	fi

	# A command whose usage starts with subcommands ("Usage: kvmbench patches list|verify ...")
	# takes one of them first.
	local usage re_sub='^Usage: kvmbench [a-z0-9-]+ ([a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+) '
	usage=$("$kb" "$cmd" --help 2>/dev/null | head -n 1)
	if [[ $usage =~ $re_sub ]]; then
		if ! _kvmbench_operand_before "$cmdi" "$opts"; then
			_kvmbench_reply "${BASH_REMATCH[1]//|/$'\n'}" "$cur"
		fi
		return 0
	fi

	case $cmd in
	run | ab | list)
		if [[ $cmd == run && $cur == */* ]]; then
			list=$(_kvmbench_tests "$kb" | grep /)
			_kvmbench_reply "$list" "$cur"
			((${#COMPREPLY[@]})) || _kvmbench_reply "$(_kvmbench_tests "$kb" --all | grep /)" "$cur"
		else
			list=$(_kvmbench_tests "$kb" | grep -v /)
			[[ $cmd == run && -n $list ]] && list+=$'\n'${list//$'\n'/$'/\n'}/
			_kvmbench_reply "$list" "$cur"
			if ((${#COMPREPLY[@]} == 0)); then
				list=$(_kvmbench_tests "$kb" --all | grep -v /)
				[[ $cmd == run && -n $list ]] && list+=$'\n'${list//$'\n'/$'/\n'}/
				_kvmbench_reply "$list" "$cur"
			fi
			# A lone "SUITE/" is a prefix to go on typing, not a word.
			[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null
		fi
		;;
	compare | report)
		_kvmbench_files "$cur" '*.json'
		;;
	esac
	return 0
}

complete -F _kvmbench kvmbench
