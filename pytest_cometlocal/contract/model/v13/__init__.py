"""Plan format v1.3's models that do not fit the v1 modules beside this folder (contract/model is full: twelve modules)."""
