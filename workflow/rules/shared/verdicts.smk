"""The verdict summary: results/{model}/verdicts.html, every claim of the findings
tables with its coloured verdict, estimate, interval and paper value, each linked to its
figure or table; workflow/report/workflow.rst shows it first in the report. Part of
`rule all`."""


localrules:
    verdicts,


rule verdicts:
    input:
        unpack(findings_tables),
    output:
        report(
            "results/{model}/verdicts.html",
            caption="../../report/verdicts.rst",
            category="Verdicts",
        ),
    log:
        "logs/{model}/verdicts.log",
    resources:
        mem_mb=500,
        runtime=5,
    params:
        reported=lambda w: PLAN.reported_results(w.model),
    script:
        "../../scripts/shared/verdicts.py"
