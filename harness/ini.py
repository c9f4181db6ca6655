"""Read one of the repository's INI tables (variants, matrix, benchmarks,
bad-input rows): the one reader, so that every table reports a missing
file or a syntax error the same way, as its own error class."""
import configparser


def read(path, error):
    """A ConfigParser (no interpolation) of @path; @error(f'{path}: why')
    raised when the file cannot be read or parsed."""
    cp = configparser.ConfigParser(interpolation=None)
    try:
        with open(path) as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        raise error(f'{path}: {e}') from None
    return cp
