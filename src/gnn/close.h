#ifdef __cplusplus
}
#endif
#endif /* FGL_GNN_H */

/* fgl:private */

#ifdef __cplusplus
}
#endif
#endif /* FGL_GNN_H_PRIVATE */

/* fgl:implementation */
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */
