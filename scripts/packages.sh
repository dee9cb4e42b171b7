# Sourced by the test scripts: installs the Debian packages a test needs from the
# system where they are missing (apt-get, as root or with `sudo -n`), or fails naming
# them and the command that would install them.
#
#   install_missing WHO PACKAGE...
#
# WHO names the calling script in the messages.
install_missing() {
    local who=$1
    shift
    local missing=() p
    for p in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    ((${#missing[@]})) || return 0
    echo "$who: installing ${missing[*]}" >&2
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "$who: ${missing[*]} missing and there is no apt-get here; install them" \
            "with this system's package manager, then run this script again" >&2
        exit 2
    fi
    local sudo=()
    if ((EUID != 0)); then
        if sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            echo "$who: ${missing[*]} missing, and installing them needs root; run:" \
                "sudo apt-get install $*" >&2
            exit 2
        fi
    fi
    if ! { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"; }; then
        echo "$who: 'apt-get install ${missing[*]}' failed (see above)" >&2
        exit 2
    fi
}
