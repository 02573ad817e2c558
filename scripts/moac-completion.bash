# bash completion for moac. Installed as share/bash-completion/completions/moac (loaded on demand by
# bash-completion); from a checkout: `source scripts/moac-completion.bash`.
#
# The options and their values come from the moac being completed: `moac SUBCOMMAND --help` lists every
# option, and an option whose values are names shows them as `--target TEXT:{c,openmp,openacc}`; the
# stages of --emit come from `moac --list-stages`. So a new option or value needs no change here. Only
# which options name files or folders is written below. Both `--emit code` and `--emit=code` complete,
# whether or not COMP_WORDBREAKS splits at '='; file names may hold spaces and be typed quoted.

# The options of `moac SUB --help` (SUB empty: moac's own), one per line, each followed by a tab and its
# values ("c openmp openacc") when it takes names.
_moac_options() {
  local line re='^  (-[a-zA-Z],)?(--[a-z][-a-z]*)( [A-Z]+)?(:\{([^}]*)\})?'
  "$1" ${2:+"$2"} --help 2>/dev/null | while IFS= read -r line; do
    if [[ $line =~ $re ]]; then
      [ -n "${BASH_REMATCH[1]}" ] && printf '%s\n' "${BASH_REMATCH[1]%,}"
      printf '%s\t%s\n' "${BASH_REMATCH[2]}" "${BASH_REMATCH[5]//,/ }"
    fi
  done
}

# The word as the shell will read it: an opening quote dropped, backslash escapes undone.
_moac_dequote() {
  local w=$1
  case $w in
    \"* | \'*) w=${w:1} ;;
    *) w=$(printf '%s' "$w" | sed 's/\\\(.\)/\1/g') ;;
  esac
  printf '%s' "$w"
}

# COMPREPLY from newline-separated candidates: names with spaces stay whole.
_moac_reply() {
  COMPREPLY=()
  [ -z "$1" ] || mapfile -t COMPREPLY <<<"$1"
}

# Values of option OPT for the word CUR; PREFIX goes before each (`--emit=` when '=' does not split words).
_moac_values() {
  local moac=$1 sub=$2 opt=$3 cur=$4 prefix=$5 values
  case $opt in
    -o | --output | --header | --depfile | --torch | --nvcc)
      _moac_reply "$(compgen -f -- "$(_moac_dequote "$cur")" | sed "s|^|$prefix|")"; return 0 ;;
    --keep | --inputs | --outputs)
      _moac_reply "$(compgen -d -- "$(_moac_dequote "$cur")" | sed "s|^|$prefix|")"; return 0 ;;
    --emit) values=$("$moac" --list-stages 2>/dev/null | cut -f1) ;;
    *) values=$(_moac_options "$moac" "$sub" | sed -n "s/^$opt\t//p") ;;
  esac
  # an option with no listed values (--dims, --schedule, --cc, --seed) takes free text: nothing to offer
  [ -n "$values" ] || { [[ $opt == --* || $opt == -? ]] && _moac_takes_value "$moac" "$sub" "$opt"; return; }
  _moac_reply "$(compgen -W "$values" -- "$cur" | sed "s|^|$prefix|")"
  return 0
}

# 0 when OPT takes a value (its --help line names a type), so the word after it is that value.
_moac_takes_value() {
  "$1" ${2:+"$2"} --help 2>/dev/null | grep -qE "^  (-[a-zA-Z],)?([^ ]*[ ,])?$3 [A-Z]"
}

_moac() {
  # The words with `--opt`, `=`, `value` joined back into `--opt=value` (COMP_WORDBREAKS splits them).
  local words=() cword=0 i w joined=0
  COMPREPLY=()
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    if [ "$w" = = ] && [ ${#words[@]} -gt 0 ] && [[ ${words[-1]} == -* && ${words[-1]} != *=* ]]; then
      words[-1]+==; joined=1
    elif [ $joined = 1 ]; then
      words[-1]+=$w; joined=0
    else
      words+=("$w"); joined=0
    fi
    [ "$i" -eq "$COMP_CWORD" ] && cword=$((${#words[@]} - 1))
  done
  local moac=${words[0]} cur=${words[cword]} prev=
  [ "$cword" -gt 0 ] && prev=${words[cword - 1]}
  [[ $moac == "~/"* ]] && moac=$HOME/${moac:2}

  local sub=""
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      compile | explain | check | run) sub=${words[i]}; break ;;
    esac
  done

  if [[ $cur == --*=* ]]; then
    local prefix=${cur%%=*}=
    [[ $COMP_WORDBREAKS == *=* ]] && prefix=
    _moac_values "$moac" "$sub" "${cur%%=*}" "${cur#*=}" "$prefix"
    return
  fi
  if [[ $prev == -* && $prev != *=* ]] && _moac_values "$moac" "$sub" "$prev" "$cur" ""; then
    return
  fi

  if [[ $cur == -* ]]; then
    _moac_reply "$(compgen -W "$(_moac_options "$moac" "$sub" | cut -f1)" -- "$cur")"
  elif [ -z "$sub" ]; then
    _moac_reply "$(compgen -W "compile explain check run" -- "$cur")"
  else
    local word
    word=$(_moac_dequote "$cur")
    _moac_reply "$(compgen -f -X '!*.moa' -- "$word"; compgen -d -- "$word")"
  fi
}
complete -o filenames -F _moac moac
