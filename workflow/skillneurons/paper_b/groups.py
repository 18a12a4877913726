"""Paper B's groups of tasks: the generalization groups (Table 3: training, in-domain
tasks and out-of-domain test tasks) and the continual-learning orders (Table 14).

Paper B trains on AmazonFood, QQP and MNLI and tests out of domain on SST-2, PAWS and
GPTNLI: one training and one test task per type; its generation group trains on
CNN/DailyMail, SciQA and E2E and tests on XSum, TweetQA and CommonGen. Left unset, the
groups follow the configured tasks the same way: the first task of each type trains,
the others test; the continual-learning order is a twin of paper B's order 1 when its
twins are configured, else the configured tasks in turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: The ``test_tasks`` value that picks :func:`out_of_domain` (config's ``auto``, as
#: ``skillneurons.plan.tasks.AUTO``, which this module cannot import: the plan imports it).
AUTO = "auto"


def task_groups(
    tasks: Sequence[str],
    task_types: Mapping[str, str],
    train: Sequence[str] | None = None,
    test: Sequence[str] | None = None,
    section: str = "paper_b.generalization",
    pool: str = "paper_b.tasks",
    configured: Sequence[str] | None = None,
) -> tuple[list[str], list[str]]:
    """The training and test groups: ``train`` and ``test`` as given (config
    ``section``: ``paper_b.generalization`` for the classification group,
    ``paper_b.generation`` for the generation group), any of the ``configured`` tasks
    (config ``tasks``; default ``tasks``), so that §5's groups can reach a task that
    paper B's part 1 does not train; else among ``tasks`` (config ``pool``) the first
    task of each type and the rest; ``test`` ``auto`` is :func:`out_of_domain`. Raises
    ``ValueError`` naming a task outside the configured ones or one in both groups."""
    allowed = list(tasks if configured is None else configured)
    for key, chosen in (("train_tasks", train), ("test_tasks", test)):
        if key == "test_tasks" and chosen == AUTO:
            continue
        unknown = sorted(set(chosen or ()) - set(allowed))
        if unknown:
            named = pool if configured is None else "the configured tasks"
            raise ValueError(
                f"{section}.{key} {unknown} are not among {named} "
                f"{allowed}; add them there or pick others"
            )
    if train is None:
        first = {}
        for task in tasks:
            first.setdefault(task_types[task], task)
        train = list(first.values())
    if test is None:
        test = [task for task in tasks if task not in train]
    elif test == AUTO:
        test = out_of_domain(train, allowed, task_types)
    shared = sorted(set(train) & set(test))
    if shared:
        raise ValueError(
            f"{section}: {shared} are both training and test tasks; a task "
            "is either in-domain or out-of-domain"
        )
    return list(train), list(test)


def out_of_domain(
    train: Sequence[str], configured: Sequence[str], task_types: Mapping[str, str]
) -> list[str]:
    """Per type of the ``train`` tasks, the first ``configured`` task of that type that
    does not train (paper B §5: an out-of-domain test task of each trained type); none
    for a type without another task."""
    types = dict.fromkeys(task_types[task] for task in train)
    test = {}
    for task in configured:
        kind = task_types[task]
        if kind in types and task not in train:
            test.setdefault(kind, task)
    return [test[kind] for kind in types if kind in test]


#: Paper B's order 1 (DBPedia -> Amazon -> Yahoo -> AGNews) on the synthetic suite:
#: syn_sst2 stands in for Amazon's reviews, syn_mnli for Yahoo Answers, which has no
#: twin. The order keeps the twins that are configured, given its first two (the
#: default's three tasks: DBPedia, then Amazon's stand-in).
ORDER1_TWIN = ("syn_dbpedia", "syn_sst2", "syn_mnli", "syn_agnews")


def order1_twin(tasks: Sequence[str]) -> list[str] | None:
    """:data:`ORDER1_TWIN` over ``tasks``: the twins among ``tasks`` in the order's order;
    None unless the order's first two (DBPedia's and Amazon's twins) are among them."""
    if not all(task in tasks for task in ORDER1_TWIN[:2]):
        return None
    return [task for task in ORDER1_TWIN if task in tasks]


def continual_orders(
    tasks: Sequence[str],
    orders: Sequence[Sequence[str]] | None,
    configured: Sequence[str] | None = None,
) -> dict[str, list[str]]:
    """Paper B's continual-learning orders (§6, Table 14), named ``order1``,
    ``order2``, ...: ``orders`` as given (config ``paper_b.continual.orders``) over any
    of the ``configured`` tasks (config ``tasks``; default ``tasks``), so the
    benchmarks' own datasets need not join paper B's §4-5 tasks; or, when None,
    :func:`order1_twin` when its first two twins are among ``tasks`` (paper_b.tasks), else one
    order of ``tasks`` as configured.
    Raises ``ValueError`` naming an order with an unconfigured task or a task twice.
    """
    configured = list(tasks if configured is None else configured)
    if orders is None:
        twin = order1_twin(tasks)
        if twin is not None:
            orders = [twin]
        else:
            orders = [tasks] if len(tasks) >= 2 else []
    checked = {}
    for number, order in enumerate(orders, start=1):
        key = f"paper_b.continual.orders[{number - 1}]"
        unknown = [task for task in order if task not in configured]
        if unknown:
            raise ValueError(
                f"{key}: {unknown} are not among the configured tasks {configured}; add "
                "them to tasks or pick others"
            )
        if len(set(order)) != len(order):
            raise ValueError(f"{key} {list(order)} names a task twice; each is learnt once")
        checked[f"order{number}"] = list(order)
    return checked
