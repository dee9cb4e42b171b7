//! What the commands read besides their own flags: a kernel's input files (`--matrix`,
//! and files a `--size` names), the machine (`--machine`, else `LOCUS_TOPOLOGY`, else
//! this one) and the workers (`--threads`, else `LOCUS_NUM_THREADS`, else the machine's
//! PUs), each error naming how the value was given ([`crate::given`]).

use crate::given::{flag_or_env, Given};
use anyhow::{bail, Context, Result};
use locus_files::RunFiles;
use locus_kernels::sparse::MatrixSpec;
use locus_kernels::Params;
use locus_topo::Topology;
use std::path::Path;

/// `params` with the matrix of `--matrix FILE`, if given, in place of the size's
/// (sparse kernels only; refused when the size names a matrix file itself).
pub(crate) fn with_matrix(params: Params, matrix: Option<&Path>) -> Result<Params> {
    let Some(path) = matrix else {
        return Ok(params);
    };
    if let Params::SpmvCrs(p) | Params::SpmvIter(p) | Params::SpmvCcs(p) | Params::Spmm(p) = &params
    {
        if let MatrixSpec::File(m) = &p.matrix {
            bail!(
                "--matrix {path:?}: --size already names a matrix file (matrix={}); give the \
                 matrix once, with --matrix or in --size",
                m.path().display()
            );
        }
    }
    params
        .with_matrix(path)
        .with_context(|| format!("bad --matrix {path:?}"))
}

/// Notes the files a run's kernels read among its inputs: `--matrix`, and any the size
/// names itself (`matrix=PATH`).
pub(crate) fn note_inputs(
    files: &mut RunFiles,
    jobs: &[Params],
    matrix: Option<&Path>,
) -> Result<()> {
    for params in jobs {
        for path in params.input_files() {
            let origin = if Some(path) == matrix {
                "--matrix"
            } else {
                "--size"
            };
            files.input(origin, path)?;
        }
    }
    Ok(())
}

/// The machine `--machine` names, else the one `LOCUS_TOPOLOGY` names, else this one; a
/// described machine read from a file is noted among the run's inputs.
pub(crate) fn machine(flag: Option<&str>, files: &mut RunFiles) -> Result<Topology> {
    let spec = flag_or_env(
        flag.map(str::to_owned),
        "--machine",
        "LOCUS_TOPOLOGY",
        |s| Ok(s.to_owned()),
    )?;
    let Some(Given {
        value: spec,
        origin,
    }) = spec
    else {
        return Topology::discover()
            .context("could not read this machine's topology (give one with --machine)");
    };
    let path = Path::new(spec.trim());
    if path.exists() {
        files.input(&origin.to_string(), path)?;
    }
    Topology::parse_spec(&spec).with_context(|| format!("bad {}", origin.with(&spec)))
}

/// The workers of a run: `--threads`, else `LOCUS_NUM_THREADS`, else `default`, which is
/// the machine's PU count (`what` names where that default comes from in a message).
pub(crate) fn threads(flag: Option<usize>, default: usize, what: &str) -> Result<usize> {
    let given = flag_or_env(flag, "--threads", "LOCUS_NUM_THREADS", crate::cli::threads)?;
    match given {
        Some(Given { value, .. }) => Ok(value),
        None if default > locus::MAX_THREADS => bail!(
            "{what} has {default} PUs, and a pool has at most {} workers: give --threads N \
             (or LOCUS_NUM_THREADS) to run on part of it",
            locus::MAX_THREADS
        ),
        None => Ok(default),
    }
}

/// The kernels a matrix's `--kernel` list keeps (all when absent): an error naming the
/// flag for a kernel that does not exist.
pub(crate) fn kernels_wanted(list: Option<&str>) -> Result<Option<Vec<locus_kernels::Kernel>>> {
    list.map(|list| {
        list.split(',')
            .map(|k| {
                <locus_kernels::Kernel as std::str::FromStr>::from_str(k.trim())
                    .map_err(|e| anyhow::anyhow!("bad --kernel: {e}"))
            })
            .collect::<Result<Vec<_>>>()
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_machine_names_the_input() {
        let e = machine(Some("no-such-box"), &mut RunFiles::new()).unwrap_err();
        assert!(format!("{e:#}").contains("no-such-box"), "{e:#}");
    }
}
