"""Panels on a Dask cluster: the same forecasts as local, and a cluster that loses its workers fails in one line."""

import pandas as pd
import pytest
from distributed import Client, LocalCluster

from orrery.errors import ConfigError
from orrery.forecast import analysis as A
from orrery.forecast import cli, plan
from orrery.forecast.data import load
from orrery.llm.scripted import ScriptedModel, call, turn

pytestmark = pytest.mark.integration  # each test starts a Dask cluster


def _cluster(**kw):
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None, **kw)


@pytest.mark.timeout(180)
def test_panel_fit_on_local_cluster_matches_local(panel):
    sd = load(panel, groupby="store", h=6)
    local = A.panel_fit(sd, n_windows=2)  # the default policy, CV fitted once per model
    with _cluster() as cluster, Client(cluster) as client:
        dist = A.panel_fit(sd, n_windows=2, client=client)
    assert dist.choice == local.choice and dist.selection.name == local.selection.name
    pd.testing.assert_frame_equal(dist.forecasts, local.forecasts, check_dtype=False, rtol=1e-5)
    scores = ["unique_id", "cutoff", "model"]
    pd.testing.assert_frame_equal(
        dist.cv.scores.sort_values(scores).reset_index(drop=True),
        local.cv.scores.sort_values(scores).reset_index(drop=True),
        check_dtype=False,
        rtol=1e-5,
    )


def _many(make_monthly, n=45):
    return load(
        pd.concat([make_monthly(n=36, seed=k).assign(store=f"s{k}") for k in range(n)], ignore_index=True),
        groupby="store",
        h=6,
    )


@pytest.mark.timeout(120)
def test_a_cluster_losing_its_workers_mid_run_fails_in_one_line(make_monthly, monkeypatch):
    monkeypatch.setattr(plan, "LOST_AFTER_S", 1.0)
    sd = _many(make_monthly)
    with _cluster() as cluster, Client(cluster) as client:

        def lose_workers(_label, done, total):  # after the first chunk of series, every worker leaves
            if done < total:
                cluster.scale(0)

        with pytest.raises(plan.ClusterError, match="no worker for 1 s mid-run") as failed:
            A.panel_fit(sd, ["AutoETS", "Naive"], policy="best", n_windows=1, client=client, on_progress=lose_workers)
    assert "\n" not in str(failed.value) and "dask worker" in str(failed.value)


@pytest.mark.timeout(180)
def test_orrery_forecast_scheduler_fits_the_panel_on_that_cluster(panel, tmp_path, monkeypatch):
    path = tmp_path / "stores.csv"
    panel.to_csv(path, index=False)
    model = ScriptedModel(
        [
            turn(call("panel_analyze")),
            turn(call("panel_fit", models=["AutoETS", "Naive"], policy="best", n_windows=1)),
            "Three stores.",
        ]
    )
    on_cluster, through = [], plan._on_dask
    monkeypatch.setattr(
        plan,
        "_on_dask",
        lambda sf, method, df, client, kw: (
            on_cluster.append((method, client.scheduler.address)),
            through(sf, method, df, client, kw),
        )[1],
    )
    with _cluster(protocol="tcp") as cluster:
        result = cli.run_forecast(
            path,
            h=6,
            m=None,
            date=None,
            target=None,
            groupby=["store"],
            model=model,
            query=None,
            outs=[],
            verbose=False,
            n_jobs=1,
            scheduler=cluster.scheduler_address,
        )
    assert len(result.forecasts) == 18 and result.forecasts["mean"].notna().all()
    assert {m for m, _ in on_cluster} == {"cross_validation", "forecast"}
    assert {a for _, a in on_cluster} == {cluster.scheduler_address}


@pytest.mark.parametrize(
    "address, error, message",
    [
        ("localhost:8786", ConfigError, "not a Dask scheduler address"),  # bad input: exit 2
        ("tcp://127.0.0.1:9", plan.ClusterError, "cannot reach the Dask scheduler"),
    ],
)  # a failed run: exit 1
def test_a_bad_scheduler_is_refused_in_one_line(address, error, message, monkeypatch):
    monkeypatch.setattr(cli, "SCHEDULER_WAIT_S", 1)
    with pytest.raises(error, match=message) as refused, cli.dask_client(address):
        pass
    assert refused.value.exit_code == (2 if error is ConfigError else 1) and "\n" not in str(refused.value)
