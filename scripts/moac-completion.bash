# bash completion for moac. Installed as share/bash-completion/completions/moac (loaded on demand by
# bash-completion); from a checkout: `source scripts/moac-completion.bash`.
_moac() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
  fi

  local sub="" i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      compile | explain | check | run) sub=${words[i]}; break ;;
    esac
  done

  case $prev in
    --emit) # the stage names from the driver's own table (compiler/driver/Stages.def)
      local stages
      stages=$("${words[0]}" --list-stages 2>/dev/null | cut -f1)
      COMPREPLY=($(compgen -W "$stages" -- "$cur")); return ;;
    --target) COMPREPLY=($(compgen -W "c openmp openacc" -- "$cur")); return ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
    -o | --output | --header | --depfile | --torch) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --keep | --inputs | --outputs) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    --dims | --seed | --schedule | --cc) return ;;
  esac

  local opts
  case $sub in
    "") COMPREPLY=($(compgen -W "compile explain check run --color --list-stages --version --help" -- "$cur")); return ;;
    compile) opts="-o --output --emit --target --header --schedule --ascii --depfile --verify-output --name --torch --color --help" ;;
    explain) opts="-o --output --ascii --html --target --color --help" ;;
    check) opts="--dims --seed --target --cc --keep --schedule --color --help" ;;
    run) opts="--dims --seed --inputs --outputs --ascii --color --help" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -X '!*.moa' -- "$cur") $(compgen -d -- "$cur"))
  fi
}
complete -o filenames -F _moac moac
