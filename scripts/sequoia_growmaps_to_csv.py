#!/usr/bin/env python3
"""Converts Sequoia's published greedy token trees ("growmaps") into the rank-path CSV that
specdse's `dp_tree_share` acceptance statistic reads (configs/acceptance/sequoia_greedy_trees.csv).

Sequoia (github.com/Infini-AI-Lab/Sequoia) searches each tree with a dynamic program
(tree_search.py) from an acceptance vector p measured on a draft / target / dataset: p[k] is the
share of verification steps whose accepted token was the draft's k-th candidate. Its growmap files
(torch.save of a dict) keep the tree, not the vector; `Successors[i]` lists node i's children, the
j-th of them being the draft's rank-j candidate below node i. This script reads that list without
torch (a .pt file is a zip holding a pickle) and writes every node as its rank path from the root
("0 1": the top candidate, then the second below it; the root is implicit).

Usage: sequoia_growmaps_to_csv.py --sequoia DIR [--out FILE]
  DIR: a checkout of Infini-AI-Lab/Sequoia (the shipped CSV was made at commit 0ff3ff7).
"""
import argparse
import io
import os
import pickle
import sys
import zipfile

# (tree name, dataset, hardware the tree was sized for, file in the Sequoia repository)
TREES = [
    ("a100-cnn", "cnn_dailymail", "A100", "A100_growmaps/68m_7b/growmaps/A100-CNN-68m-7b-greedy.pt"),
    ("a100-openwebtext", "openwebtext", "A100", "A100_growmaps/68m_7b/growmaps/A100-OpenWebText-68m-7b-greedy.pt"),
    ("a100-c4", "c4", "A100", "A100_growmaps/68m_7b/growmaps/A100-C4-68m-7b-greedy.pt"),
    ("l40-cnn", "cnn_dailymail", "L40", "L40_growmaps/68m_7b/growmaps/L40-CNN-68m-7b-greedy.pt"),
    ("l40-openwebtext", "openwebtext", "L40", "L40_growmaps/68m_7b/growmaps/L40-OpenWebText-68m-7b-greedy.pt"),
    ("l40-c4", "c4", "L40", "L40_growmaps/68m_7b/growmaps/L40-C4-68m-7b-greedy.pt"),
    ("l40-c4-16", "c4", "L40", "L40_growmaps/68m_7b/growmaps/L40-C4-68m-7b-greedy-16.pt"),
]


# The shipped CSV's provenance lines (written first, so that a rerun reproduces the file).
HEADER = """# Sequoia's published greedy token trees for Llama-68M (JackFram/llama-68m) drafting for
# Llama-2-7B (meta-llama/Llama-2-7b-hf), one row per draft node as its rank path from the root
# ("0 1": the draft's top candidate, then its second candidate below it; the root is implicit).
# Source: github.com/Infini-AI-Lab/Sequoia at commit 0ff3ff71475ca148f2dfb7545e0de5caf5c67b39,
# files {A100,L40}_growmaps/68m_7b/growmaps/{A100,L40}-{CNN,OpenWebText,C4}-68m-7b-greedy.pt and
# L40-C4-68m-7b-greedy-16.pt, converted by scripts/sequoia_growmaps_to_csv.py (the growmap's
# `Successors` lists; nothing else is read).
# What a tree says: Sequoia's tree_search.py builds each one with a dynamic program from an
# acceptance vector p measured greedily on that dataset (p[k]: the share of verification steps of
# depth-1 trees whose accepted token was the draft's k-th candidate; tests/test_accept.py --ALG
# greedy). That program keeps the `nodes` most probable rank paths under p within the tree's depth
# (the product of p along a path), so a tree is a published statistic of p: the vectors themselves
# are not in the repository. `nodes` counts the root, as Sequoia's budget does.
"""


def successors(path):
    """The growmap's Successors list (tensors in the pickle are skipped: only lists are needed)."""
    with zipfile.ZipFile(path) as z:
        pkl = next(n for n in z.namelist() if n.endswith("/data.pkl"))

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                if module.startswith("torch"):
                    return lambda *args, **kwargs: None  # tensors and storages: not needed
                if module == "collections" and name == "OrderedDict":
                    return dict
                raise pickle.UnpicklingError(f"{path}: unexpected class {module}.{name}")

            def persistent_load(self, pid):
                return None

        grow_map = Unpickler(io.BytesIO(z.read(pkl))).load()
    succ = grow_map["Successors"]
    if not isinstance(succ, list) or not all(isinstance(s, list) for s in succ):
        sys.exit(f"{path}: 'Successors' is not a list of lists")
    return succ


def rank_paths(succ):
    paths = {0: ()}
    for node, children in enumerate(succ):
        if node not in paths:
            sys.exit(f"node {node} is listed before its parent")
        for rank, child in enumerate(children):
            paths[child] = paths[node] + (rank,)
    if len(paths) != len(succ):
        sys.exit("the growmap's nodes are not one tree")
    return [paths[i] for i in range(1, len(succ))]  # the root is implicit


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sequoia", required=True, help="checkout of github.com/Infini-AI-Lab/Sequoia")
    ap.add_argument("--out", default="-", help="CSV to write (default: stdout)")
    a = ap.parse_args()
    out = io.StringIO()
    out.write(HEADER)
    out.write("tree,dataset,hardware,nodes,path\n")
    for name, dataset, hardware, rel in TREES:
        paths = rank_paths(successors(os.path.join(a.sequoia, rel)))
        for p in paths:
            out.write(f"{name},{dataset},{hardware},{len(paths) + 1},{' '.join(map(str, p))}\n")
    if a.out == "-":
        sys.stdout.write(out.getvalue())
    else:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(out.getvalue())
        os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
