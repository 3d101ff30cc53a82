def verify_matching(*args, **kwargs):
    raise NotImplementedError("verify_matching is being written")
