"""Prints the text of a PDF, page by page."""
import sys

def main(path: str) -> None:
    print(f"would extract {path}")

if __name__ == "__main__":
    main(sys.argv[1])
