"""The packages whose `__init__` loads its names on first use (popucom.lazy_exports) still
offer every name they list, each the object of its module, and refuse any other."""

import importlib

import pytest

PACKAGES = ("popucom.infer", "popucom.search", "popucom.selfplay", "popucom.train", "popucom.pipeline")


@pytest.mark.parametrize("name", PACKAGES)
def test_every_listed_name_is_offered(name: str) -> None:
    package = importlib.import_module(name)
    for public in package.__all__:
        value = getattr(package, public)
        if callable(value):  # a class or function: from one of the package's own modules
            assert value.__module__.startswith(f"{name}."), (public, value.__module__)
            assert getattr(importlib.import_module(value.__module__), public) is value
        assert public in dir(package)


def test_the_old_homes_of_the_settings_still_offer_them() -> None:
    from popucom.arena.ladder import LadderConfig as ladder
    from popucom.arena.ladder_config import LadderConfig
    from popucom.selfplay import SelfPlayConfig as selfplay
    from popucom.selfplay.config import SelfPlayConfig
    from popucom.selfplay.worker import SelfPlayConfig as worker
    from popucom.train import TrainConfig as train
    from popucom.train.config import TrainConfig
    from popucom.train.trainer import TrainConfig as trainer

    assert ladder is LadderConfig
    assert selfplay is worker is SelfPlayConfig
    assert train is trainer is TrainConfig


@pytest.mark.parametrize("name", PACKAGES)
def test_an_unknown_name_is_an_attribute_error(name: str) -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module(name).no_such_name  # noqa: B018
